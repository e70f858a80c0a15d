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
//!    are at least half of the problem's samples, the run ends.
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
//!    cut of the full gradient (the full problem if that is more than half of the samples).
//!
//! After [`MAX_ROUNDS`] shrinks the fit finishes on the full problem without further checks, so
//! the certificate is always reached by the same engine.

use super::engine::{End, Start, Totals, finish, run, stopping_threshold};
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

/// The engine's shrinking test: at least half of the samples could leave.
pub(crate) fn worth_shrinking(problem: &SimplexProblem<'_>, state: &State, v: &Vertices) -> bool {
    let k = kept_samples(problem, state, v).len();
    if std::env::var("FWSVM_DEBUG").is_ok() {
        let mean = state.alpha_dot_grad();
        eprintln!(
            "check: kept {k} of {} coreset {} mean {mean:.3e} gap {:.3e} away {:.3e}",
            problem.n_samples(),
            state.active.len(),
            v.toward_grad - mean,
            v.away_grad
        );
    }
    k * 4 <= 3 * problem.n_samples()
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

/// The sub-problem's state: α and G of the full state on `slots`, the coreset in its order.
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
}

/// Recomputes G exactly on every slot of the samples not in `rows` (sorted), from the coreset;
/// returns the number of kernel values computed.
fn rebuild_left_out(problem: &SimplexProblem<'_>, full: &mut State, rows: &[usize]) -> u64 {
    let m = problem.n_samples();
    let mut inside = vec![false; m];
    rows.iter().for_each(|&i| inside[i] = true);
    let outside: Vec<usize> = (0..m).filter(|&i| !inside[i]).collect();
    if outside.is_empty() {
        return 0;
    }
    // Σ_a α_a s_a k(x_i(a), ·) grouped by sample (the SVR's two slots of a sample share it).
    let signs = problem.signs();
    let mut coef = vec![0.0; m];
    let mut total = 0.0;
    let mut active = full.active.clone();
    active.sort_unstable();
    for &a in &active {
        let w = full.alpha[a] * signs[a];
        coef[problem.sample(a)] += w;
        total += w;
    }
    let support: Vec<usize> = (0..m).filter(|&i| coef[i] != 0.0).collect();
    let weights: Vec<f64> = support.iter().map(|&i| coef[i]).collect();
    let data = problem.kernel().data();
    let left_out = data.select_rows(&outside);
    let kernel = KernelMatrix::new(problem.kernel().kernel(), left_out.view());
    let mut f = vec![problem.shift() * total; outside.len()];
    kernel.add_expansion(&data, &support, &weights, &mut f);
    let scale = problem.scale();
    for c in 0..problem.copies() {
        for (r, &i) in outside.iter().enumerate() {
            let b = c * m + i;
            full.grad_q[b] = scale * signs[b] * f[r];
        }
    }
    (outside.len() * support.len()) as u64
}

/// [`super::solve`] with shrinking (see the module documentation).
pub(crate) fn solve(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<Solution> {
    let (m, copies) = (problem.n_samples(), problem.copies());
    let mut tracker = Tracker::new(params, monitor);
    let mut steps = StepCounts::default();
    let mut totals = Totals::default();
    let (support, values) = initial_iterate(problem, params)?;
    let mut start = Some(Start::Iterate(support, values));
    let mut full = State::zeros(0);
    let mut since_resync = 0;
    // The samples of the current problem (None: all of them).
    let mut rows: Option<Vec<usize>> = None;
    let mut shrinks = 0;
    // Whether G is out of date outside `rows` (after a smaller problem shrank further).
    let mut stale = false;
    let (exit, v) = loop {
        let allow = shrinks < MAX_ROUNDS;
        let next = match &rows {
            None => {
                let start = start.take().unwrap_or(Start::State(
                    std::mem::replace(&mut full, State::zeros(0)),
                    since_resync,
                ));
                let r = run(
                    problem,
                    params,
                    &mut tracker,
                    monitor,
                    &mut steps,
                    start,
                    None,
                    allow,
                )?;
                totals.merge(&r.totals);
                (full, since_resync) = (r.state, r.since_resync);
                match r.end {
                    End::Exit(reason) => break (reason, r.v),
                    End::Shrink => kept_samples(problem, &full, &r.v),
                }
            }
            Some(rows) => {
                let slots = full_slots(m, copies, rows);
                let data = problem.kernel().data().select_rows(rows);
                let sub = restrict(problem, &slots, &data);
                let sub_state = gather(&full, &slots);
                if params.verbose {
                    eprintln!(
                        "fwsvm: shrinking to {} of {m} samples ({} in the coreset)",
                        rows.len(),
                        sub_state.active.len()
                    );
                }
                let start = Start::State(sub_state, since_resync);
                let r = run(
                    &sub,
                    params,
                    &mut tracker,
                    monitor,
                    &mut steps,
                    start,
                    None,
                    allow,
                )?;
                totals.merge(&r.totals);
                since_resync = r.since_resync;
                scatter(&r.state, &slots, &mut full);
                stale = r.end == End::Shrink;
                match r.end {
                    End::Shrink => kept_samples(&sub, &r.state, &r.v)
                        .into_iter()
                        .map(|i| rows[i])
                        .collect(),
                    End::Exit(reason) => {
                        totals.evaluations += rebuild_left_out(problem, &mut full, rows);
                        full.refresh_scalars(problem);
                        let v = scan(problem, &mut full.grad_q, &full.alpha);
                        let gap = v.toward_grad - full.alpha_dot_grad();
                        let threshold = stopping_threshold(problem, params, &full);
                        if reason != ExitReason::Converged || gap <= threshold {
                            break (reason, v);
                        }
                        if params.verbose {
                            eprintln!(
                                "fwsvm: left-out samples violate (gap {gap:.3e} > {threshold:.3e}): they rejoin"
                            );
                        }
                        kept_samples(problem, &full, &v)
                    }
                }
            }
        };
        shrinks += 1;
        if next.len() * 2 > m || shrinks >= MAX_ROUNDS {
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
    full.refresh_scalars(problem);
    let objective = full.objective();
    let gap = v.toward_grad - full.alpha_dot_grad();
    let stats = tracker.stats(
        exit,
        objective,
        gap,
        full.quad,
        steps,
        full.active.len(),
        &totals,
    );
    finish(params, stats, full.alpha, tracker.history, None)
}
