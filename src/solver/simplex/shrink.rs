//! Shrinking: solve a smaller problem on the samples that can still matter, then certify on all.
//!
//! At the optimum of the simplex problem every coreset point has the same gradient αᵀ∇g and
//! every other point a gradient at most that (for the SVC, ∇g_b = −2·y_b f(x_b): points outside
//! the margin). Most samples of a large problem end up far below it, yet each step updates
//! their gradient and each new kernel column covers them. LIBSVM's shrinking (Joachims 1999;
//! Chang & Lin 2011, §5.1) drops such variables from the working problem; here the dropped rows
//! leave the problem itself:
//!
//! 1. Every [`CHECK_EVERY`] steps the engine counts the samples none of whose slots is in the
//!    coreset and whose gradient is below the cut min(away gradient, αᵀ∇g − Δ), Δ the current
//!    duality gap: no step would choose them now, and the cut tightens as Δ shrinks. When they
//!    are at least a quarter of the problem's samples, the run ends.
//! 2. The kept samples' rows are copied into a new problem (their kernel, signs, ridge, linear
//!    terms; one slot per copy as before), which starts from the same α and the same G (no
//!    kernel column is recomputed). Its column cache holds columns of the kept rows only, so
//!    the same `cache_size` holds proportionally more of them, and each column and each pass
//!    costs |kept|/m of the full ones. Its own checks may shrink it further.
//! 3. When the smaller problem converges, G is rebuilt exactly on the left-out samples
//!    (G_b = σ s_b (Σ_a α_a s_a k(x_a, x_b) + κ Σ_a α_a s_a): one kernel expansion over the
//!    coreset, [`KernelMatrix::add_expansion`]) and the duality gap is taken over **all** slots.
//!    If it meets the stopping rule the fit ends, certified exactly as without shrinking.
//!    Otherwise the violators rejoin: a new problem of the coreset and every sample above the
//!    cut of the full gradient (the full problem if that is more than three quarters of the
//!    samples).
//!
//! After [`MAX_ROUNDS`] shrinks the fit finishes on the full problem without further checks, so
//! the certificate is always reached by the same engine.

use super::engine::{End, Start, Totals, final_stats, finish, run, stopping_threshold};
use super::init::initial_iterate;
use super::monitor::Monitor;
use super::scan::{Vertices, scan};
use super::state::State;
use super::tracker::Tracker;
use super::{ExitReason, Solution, SolverParams, StepCounts};
use crate::data::FeatureMatrix;
use crate::error::Result;
use crate::kernel::{Kernel, KernelMatrix};
use crate::problem::SimplexProblem;

/// Steps between two shrinking checks (each costs one pass over the gradient).
pub(crate) const CHECK_EVERY: u64 = 1000;

/// Problems with fewer samples are not shrunk: their passes and columns are cheap already.
const MIN_SAMPLES: usize = 2000;

/// Smaller problems built per solve, at most.
const MAX_ROUNDS: usize = 10;

/// Whether [`solve`] (shrinking) applies to this problem and these parameters.
pub(crate) fn applies(problem: &SimplexProblem<'_>, params: &SolverParams) -> bool {
    params.shrinking
        && params.sample_size.is_none()
        && problem.kernel().kernel() != Kernel::Precomputed
        && problem.n_samples() >= MIN_SAMPLES
}

/// The gradient below which a sample outside the coreset is left out.
fn cut(state: &State, v: &Vertices) -> f64 {
    let mean = state.alpha_dot_grad();
    let gap = v.toward_grad - mean;
    (mean - gap).min(v.away_grad)
}

/// The samples (indices into `problem`) that stay: any slot in the coreset or with a gradient
/// at or above the cut.
fn kept_samples(problem: &SimplexProblem<'_>, state: &State, v: &Vertices) -> Vec<usize> {
    let m = problem.n_samples();
    let cut = cut(state, v);
    let b = problem.linear();
    let mut keep = vec![false; m];
    for (a, (&alpha, &g)) in state.alpha.iter().zip(&state.grad_q).enumerate() {
        // NaN gradients stay (never shrink on a value that cannot be compared).
        if alpha > 0.0 || !(b[a] - 2.0 * g < cut) {
            keep[a % m] = true;
        }
    }
    (0..m).filter(|&i| keep[i]).collect()
}

/// The engine's shrinking test: the samples to keep, when at least a quarter of them could
/// leave (a new problem costs a copy of the kept rows, O(kept · features), about one column's
/// worth of work per feature; make_classification 30k: 4.65 s shrinking at half, 4.44 s at a
/// quarter).
pub(crate) fn worth_shrinking(
    problem: &SimplexProblem<'_>,
    state: &State,
    v: &Vertices,
) -> Option<Vec<usize>> {
    let kept = kept_samples(problem, state, v);
    small_enough(kept.len(), problem.n_samples()).then_some(kept)
}

/// Whether a problem of `kept` of `m` samples is worth building (see [`worth_shrinking`]).
fn small_enough(kept: usize, m: usize) -> bool {
    kept * 4 <= 3 * m
}

/// The full problem's slot of copy `c` of sample `i` is `c·m + i`; a sub-problem on `rows`
/// numbers them `c·|rows| + r`.
fn full_slots(m: usize, copies: usize, rows: &[usize]) -> Vec<usize> {
    (0..copies)
        .flat_map(|c| rows.iter().map(move |&i| c * m + i))
        .collect()
}

/// The problem restricted to the samples `rows` (their rows copied into `data`).
fn restrict<'d>(
    problem: &SimplexProblem<'_>,
    slots: &[usize],
    data: &'d FeatureMatrix,
) -> SimplexProblem<'d> {
    let kernel = KernelMatrix::new(problem.kernel().kernel(), data.view());
    SimplexProblem::from_parts(
        kernel,
        slots.iter().map(|&a| problem.signs()[a]).collect(),
        slots.iter().map(|&a| problem.ridge(a)).collect(),
        slots.iter().map(|&a| problem.linear()[a]).collect(),
        problem.shift(),
        problem.scale(),
    )
}

/// The sub-problem's state: α and G of the full state on `slots`, the coreset in its order,
/// G's round-off bookkeeping.
fn gather(full: &State, slots: &[usize]) -> State {
    let mut sub = State::zeros(slots.len());
    let mut position = vec![u32::MAX; full.alpha.len()];
    for (s, &a) in slots.iter().enumerate() {
        position[a] = s as u32;
        sub.alpha[s] = full.alpha[a];
        sub.grad_q[s] = full.grad_q[a];
    }
    for &a in &full.active {
        debug_assert_ne!(position[a], u32::MAX, "coreset points are always kept");
        sub.activate(position[a] as usize);
    }
    (sub.since_resync, sub.rounded) = (full.since_resync, full.rounded);
    sub
}

/// Writes the sub-problem's α, G and coreset back into the full state.
fn scatter(sub: &State, slots: &[usize], full: &mut State) {
    for a in full.active.clone() {
        full.drop_point(a);
    }
    for (s, &a) in slots.iter().enumerate() {
        full.alpha[a] = sub.alpha[s];
        full.grad_q[a] = sub.grad_q[s];
    }
    for &s in &sub.active {
        full.activate(slots[s]);
    }
    (full.since_resync, full.rounded) = (sub.since_resync, sub.rounded);
}

/// Recomputes G exactly on every slot of the samples not in `rows` (sorted); returns the
/// number of kernel values computed.
fn rebuild_left_out(problem: &SimplexProblem<'_>, full: &mut State, rows: &[usize]) -> u64 {
    let mut inside = vec![false; problem.n_samples()];
    rows.iter().for_each(|&i| inside[i] = true);
    let outside: Vec<usize> = (0..inside.len()).filter(|&i| !inside[i]).collect();
    full.rebuild_exact(problem, Some(&outside))
}

/// [`super::solve`] with shrinking (see the module documentation).
pub(crate) fn solve(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<Solution> {
    solve_from(problem, params, monitor, None)
}

/// [`solve`], optionally starting on the given samples (plus those of the initial iterate)
/// instead of all of them: tests use it to leave out samples that must come back.
fn solve_from(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
    first: Option<Vec<usize>>,
) -> Result<Solution> {
    let (m, copies) = (problem.n_samples(), problem.copies());
    let mut tracker = Tracker::new(params, monitor);
    let mut steps = StepCounts::default();
    let mut totals = Totals::default();
    let (support, values) = initial_iterate(problem, params)?;
    let mut full = State::zeros(0);
    let mut start = None;
    // The samples of the current problem (None: all of them).
    let mut rows: Option<Vec<usize>> = None;
    match first {
        None => start = Some(Start::Iterate(support, values)),
        Some(first) => {
            let mut keep = vec![false; m];
            first.iter().for_each(|&i| keep[i] = true);
            support.iter().for_each(|&a| keep[problem.sample(a)] = true);
            full = State::zeros(problem.n_slots());
            let mut cache = params.column_cache(m);
            full.set_iterate(problem, &mut cache, &support, &values);
            rows = Some((0..m).filter(|&i| keep[i]).collect());
        }
    }
    let mut built = 0;
    let mut shrinks = 0;
    let mut rejoins = 0;
    // Whether G is out of date outside `rows` (after a smaller problem shrank further).
    let mut stale = false;
    let (exit, v) = loop {
        // This round's problem: the full one, or the one restricted to `rows`.
        let slots = rows.as_deref().map(|r| full_slots(m, copies, r));
        let data = rows
            .as_deref()
            .map(|r| problem.kernel().data().select_rows(r));
        let sub = slots
            .as_deref()
            .zip(data.as_ref())
            .map(|(s, d)| restrict(problem, s, d));
        let current = sub.as_ref().unwrap_or(problem);
        let start = match (&slots, start.take()) {
            (None, Some(start)) => start,
            (None, None) => Start::State(std::mem::replace(&mut full, State::zeros(0))),
            (Some(slots), _) => {
                built += 1;
                let sub_state = gather(&full, slots);
                if params.verbose {
                    monitor.log(&format!(
                        "shrinking to {} of {m} samples ({} in the coreset)",
                        current.n_samples(),
                        sub_state.active.len()
                    ));
                }
                Start::State(sub_state)
            }
        };
        let allow = shrinks < MAX_ROUNDS;
        let r = run(
            current,
            params,
            &mut tracker,
            monitor,
            &mut steps,
            start,
            None,
            allow,
        )?;
        totals.merge(&r.totals);
        let next = match (rows.as_deref().zip(slots.as_deref()), r.end) {
            (None, End::Exit(reason)) => {
                full = r.state;
                break (reason, r.v);
            }
            (None, End::Shrink(kept)) => {
                full = r.state;
                kept
            }
            (Some((rows, slots)), end) => {
                scatter(&r.state, slots, &mut full);
                stale = matches!(end, End::Shrink(_));
                match end {
                    End::Shrink(kept) => kept.into_iter().map(|i| rows[i]).collect(),
                    End::Exit(reason) => {
                        // Exact G on the left-out rows, and on every row if the kept rows'
                        // G holds f32 round-off (as in the engine's own test).
                        totals.evaluations += if full.rounded {
                            full.rebuild_exact(problem, None)
                        } else {
                            rebuild_left_out(problem, &mut full, rows)
                        };
                        full.refresh_scalars(problem);
                        let v = scan(problem, &mut full.grad_q, &full.alpha);
                        let gap = v.toward_grad - full.alpha_dot_grad();
                        let threshold = stopping_threshold(problem, params, &full);
                        if reason != ExitReason::Converged || gap <= threshold {
                            break (reason, v);
                        }
                        rejoins += 1;
                        if params.verbose {
                            monitor.log(&format!(
                                "left-out samples violate (gap {gap:.3e} > {threshold:.3e}): they rejoin"
                            ));
                        }
                        kept_samples(problem, &full, &v)
                    }
                }
            }
        };
        shrinks += 1;
        if !small_enough(next.len(), m) || shrinks >= MAX_ROUNDS {
            // Back to the full problem (its G must be exact on every sample first).
            if let Some(rows) = &rows
                && stale
            {
                totals.evaluations += rebuild_left_out(problem, &mut full, rows);
            }
            rows = None;
        } else {
            rows = Some(next);
        }
    };
    let mut stats = final_stats(
        problem,
        &mut tracker,
        &mut full,
        v.toward_grad,
        exit,
        steps,
        &totals,
    );
    (stats.shrinks, stats.rejoins) = (built, rejoins);
    finish(params, monitor, stats, full.alpha, tracker.history, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DenseMatrix, Features};
    use crate::random::SplitMix64;
    use crate::solver::{Algorithm, NoMonitor, Stopping};

    /// Two Gaussian classes in 3-D, class means 4 apart on the first axis (a minority of the
    /// samples are support vectors, as shrinking expects).
    fn blobs(m: usize, seed: u64) -> (DenseMatrix, Vec<f64>) {
        let mut rng = SplitMix64::new(seed);
        let (mut v, mut y) = (Vec::with_capacity(3 * m), Vec::with_capacity(m));
        for i in 0..m {
            let label = if i % 2 == 0 { 1.0 } else { -1.0 };
            for k in 0..3 {
                v.push(rng.normal() + if k == 0 { 2.0 * label } else { 0.0 });
            }
            y.push(label);
        }
        (DenseMatrix::new(v, m, 3).expect("shape"), y)
    }

    /// The objective and the duality gap over **all** slots with G = Qα recomputed entry by
    /// entry from the support (independent of the columns, caches and shrinking).
    fn exact_objective_and_gap(problem: &SimplexProblem<'_>, alpha: &[f64]) -> (f64, f64) {
        let n = problem.n_slots();
        let support: Vec<usize> = (0..n).filter(|&a| alpha[a] > 0.0).collect();
        let b = problem.linear();
        let g: Vec<f64> = (0..n)
            .map(|t| {
                support
                    .iter()
                    .map(|&a| alpha[a] * problem.q_entry(a, t))
                    .sum()
            })
            .collect();
        let lin: f64 = support.iter().map(|&a| alpha[a] * b[a]).sum();
        let quad: f64 = support.iter().map(|&a| alpha[a] * g[a]).sum();
        let top = (0..n)
            .map(|t| b[t] - 2.0 * g[t])
            .fold(f64::NEG_INFINITY, f64::max);
        (lin - quad, top - (lin - 2.0 * quad))
    }

    fn params(algorithm: Algorithm, tol: f64, shrinking: bool) -> SolverParams {
        SolverParams {
            algorithm,
            tol,
            stopping: Stopping::AbsoluteGap,
            shrinking,
            max_iter: Some(5_000_000),
            ..SolverParams::default()
        }
    }

    /// Shrinking on and off reach the same optimum, each certified on every slot from scratch;
    /// the shrinking run did build smaller problems (or the test would prove nothing).
    fn same_optimum(problem: &SimplexProblem<'_>, tol: f64, what: &str) {
        assert!(
            applies(problem, &params(Algorithm::Swap, tol, true)),
            "{what}"
        );
        for algorithm in [Algorithm::Swap, Algorithm::Swap2o, Algorithm::Mfw] {
            let on = super::super::solve(problem, &params(algorithm, tol, true), &mut NoMonitor)
                .expect("fit");
            let off = super::super::solve(problem, &params(algorithm, tol, false), &mut NoMonitor)
                .expect("fit");
            let what = format!("{what} {algorithm}");
            assert_eq!(on.stats.exit_reason, ExitReason::Converged, "{what}");
            assert!(on.stats.shrinks > 0, "{what}: never shrank {:?}", on.stats);
            assert_eq!(off.stats.shrinks, 0, "{what}");
            for sol in [&on, &off] {
                let (obj, gap) = exact_objective_and_gap(problem, &sol.alpha);
                assert!(
                    gap <= tol * 1.001,
                    "{what}: gap {gap} on all slots, tol {tol}"
                );
                assert!((obj - sol.stats.objective).abs() <= 1e-12 * obj.abs().max(1e-300));
            }
            // Both are within their gaps of the optimum, so within 2·tol of each other.
            let (a, b) = (on.stats.objective, off.stats.objective);
            assert!((a - b).abs() <= 2.0 * tol, "{what}: {a} vs {b}");
        }
    }

    #[test]
    fn shrinking_reaches_the_same_certified_optimum() {
        let m = MIN_SAMPLES + 500;
        let (x, y) = blobs(m, 3);
        let c = vec![1.0; m];
        for kernel in [Kernel::rbf(0.5), Kernel::Linear, Kernel::poly(0.3, 1.0, 2)] {
            let km = KernelMatrix::new(kernel, Features::from(&x));
            let svc = SimplexProblem::l2_svc(km, &y, &c).expect("problem");
            same_optimum(&svc, 1e-10, &format!("svc {kernel:?}"));
        }
    }

    /// Starts on the samples minus every second support vector of the optimum: the smaller
    /// problem converges, the rebuilt gradient shows the violators, they come back, and the
    /// fit ends at the full optimum, certified on every slot.
    fn left_out_support_vectors_rejoin(problem: &SimplexProblem<'_>, tol: f64, what: &str) {
        let m = problem.n_samples();
        let p = params(Algorithm::Swap, tol, true);
        let full = super::super::solve(
            problem,
            &params(Algorithm::Swap, tol, false),
            &mut NoMonitor,
        )
        .expect("fit");
        let mut svs: Vec<usize> = (0..problem.n_slots())
            .filter(|&a| full.alpha[a] > 0.0)
            .map(|a| problem.sample(a))
            .collect();
        svs.dedup();
        assert!(svs.len() >= 4, "{what}: {} support vectors", svs.len());
        let left_out: Vec<usize> = svs.iter().copied().step_by(2).collect();
        let first: Vec<usize> = (0..m).filter(|i| !left_out.contains(i)).collect();
        let sol = solve_from(problem, &p, &mut NoMonitor, Some(first)).expect("fit");
        assert_eq!(sol.stats.exit_reason, ExitReason::Converged, "{what}");
        assert!(sol.stats.rejoins >= 1, "{what}: {:?}", sol.stats);
        let (obj, gap) = exact_objective_and_gap(problem, &sol.alpha);
        assert!(gap <= tol * 1.001, "{what}: gap {gap} on all slots");
        assert!((obj - full.stats.objective).abs() <= 2.0 * tol, "{what}");
    }

    #[test]
    fn left_out_support_vectors_rejoin_svc_and_svr() {
        let m = 600;
        let (x, y) = blobs(m, 5);
        let c = vec![4.0; m];
        let km = KernelMatrix::new(Kernel::rbf(0.5), Features::from(&x));
        let svc = SimplexProblem::l2_svc(km, &y, &c).expect("problem");
        left_out_support_vectors_rejoin(&svc, 1e-9, "svc");
        // The SVR has two slots per sample: a sample stays while either slot may matter.
        let mut rng = SplitMix64::new(7);
        let targets: Vec<f64> = (0..m)
            .map(|i| x.view().row(i)[1].sin() + 0.3 * rng.normal())
            .collect();
        let km = KernelMatrix::new(Kernel::rbf(0.5), Features::from(&x));
        let svr = SimplexProblem::l2_svr(km, &targets, 100.0, 0.5).expect("problem");
        left_out_support_vectors_rejoin(&svr, 1e-10, "svr");
    }

    #[test]
    fn the_same_model_for_any_thread_count_and_run() {
        let m = MIN_SAMPLES * 3;
        let (x, y) = blobs(m, 9);
        let c = vec![2.0; m];
        let km = KernelMatrix::new(Kernel::rbf(0.3), Features::from(&x));
        let problem = SimplexProblem::l2_svc(km, &y, &c).expect("problem");
        let p = SolverParams {
            tol: 1e-3,
            ..SolverParams::default()
        };
        let fit = |threads| {
            crate::parallel::with_threads(Some(threads), || {
                super::super::solve(&problem, &p, &mut NoMonitor).expect("fit")
            })
            .expect("pool")
        };
        let one = fit(1);
        assert!(one.stats.shrinks > 0, "{:?}", one.stats);
        for other in [fit(2), fit(1), fit(2)] {
            assert_eq!(one.alpha, other.alpha);
            assert_eq!(one.stats.n_iter, other.stats.n_iter);
        }
    }
}
