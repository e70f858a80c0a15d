//! Every algorithm against an exact reference optimum, with the reported gap checked against a
//! gap recomputed from scratch from α.

mod common;

use common::{
    BlobsSvc, blobs, dense_q, dense_q_and_optimum, objective_and_gap, reference_optimum_blocks,
};
use fwsvm::kernel::KernelMatrix;
use fwsvm::solver::{HistoryEntry, Monitor, NoMonitor, StepKind, solve};
use fwsvm::{
    Algorithm, ExitReason, Features, Init, Kernel, SimplexProblem, SolverParams, Stopping,
};

fn params(algorithm: Algorithm, tol: f64) -> SolverParams {
    SolverParams {
        algorithm,
        tol,
        stopping: Stopping::AbsoluteGap,
        max_iter: Some(2_000_000),
        ..SolverParams::default()
    }
}

fn check_against_reference(kernel: Kernel, c: f64, m: usize, seed: u64) {
    let data = BlobsSvc::new(m, 3, 1.5, seed, c);
    let problem = data.l2_svc(kernel);
    let (q, b, best) = dense_q_and_optimum(&problem);
    for algorithm in Algorithm::SINGLE_SIMPLEX {
        // Plain FW converges sublinearly: give it a looser target.
        let tol = if algorithm == Algorithm::Fw {
            1e-2 * best.abs()
        } else {
            1e-10
        };
        let sol = solve(&problem, &params(algorithm, tol), &mut NoMonitor).unwrap();
        let s = &sol.stats;
        assert_eq!(
            s.exit_reason,
            ExitReason::Converged,
            "{algorithm} {kernel:?}"
        );
        let (obj, gap) = objective_and_gap(&q, &b, &sol.alpha);
        // Reported objective and gap agree with the from-scratch values.
        assert!(
            (obj - s.objective).abs() <= 1e-12 * obj.abs().max(1.0),
            "{algorithm}: objective {obj} vs reported {}",
            s.objective
        );
        assert!(
            (gap - s.gap).abs() <= 1e-10 * obj.abs().max(1.0),
            "{algorithm}: gap {gap} vs reported {}",
            s.gap
        );
        assert!(
            gap <= tol * 1.0001 + 1e-13,
            "{algorithm}: gap {gap} above tol {tol}"
        );
        // The certified suboptimality: 0 ≤ g* − g(α) ≤ gap.
        let sub = best - obj;
        assert!(
            sub >= -1e-11 * best.abs().max(1.0),
            "{algorithm}: objective {obj} above the optimum {best}"
        );
        assert!(
            sub <= gap + 1e-11 * best.abs().max(1.0),
            "{algorithm}: suboptimality {sub} exceeds gap {gap}"
        );
        // Feasible.
        let total: f64 = sol.alpha.iter().sum();
        assert!((total - 1.0).abs() < 1e-12 && sol.alpha.iter().all(|&a| a >= 0.0));
    }
}

#[test]
fn rbf_problems_reach_the_reference_optimum() {
    for (seed, c) in [(1, 1.0), (2, 10.0), (3, 0.1)] {
        check_against_reference(Kernel::rbf(0.5), c, 40, seed);
    }
}

#[test]
fn linear_problems_reach_the_reference_optimum() {
    // Non-constant diagonal: the step formulas must use the true Q_ii.
    for (seed, c) in [(4, 1.0), (5, 100.0)] {
        check_against_reference(Kernel::linear(), c, 36, seed);
    }
}

#[test]
fn poly_and_laplacian_problems_reach_the_reference_optimum() {
    check_against_reference(Kernel::poly(0.5, 1.0, 2), 1.0, 30, 6);
    check_against_reference(Kernel::laplacian(0.3), 5.0, 30, 7);
}

#[test]
fn every_initialisation_reaches_the_optimum() {
    let data = BlobsSvc::new(50, 2, 1.0, 11, 2.0);
    let problem = data.l2_svc(Kernel::rbf(1.0));
    let (_, _, best) = dense_q_and_optimum(&problem);
    for init in [Init::Random, Init::Farthest, Init::ClosestPair] {
        let p = SolverParams {
            init,
            ..params(Algorithm::Swap, 1e-11)
        };
        let sol = solve(&problem, &p, &mut NoMonitor).unwrap();
        assert!(
            (sol.stats.objective - best).abs() < 1e-9 * best.abs(),
            "{init:?}"
        );
    }
}

/// Checks simplex feasibility and a non-decreasing objective at every step.
struct Invariants {
    last_objective: f64,
    steps: u64,
    problem_q: Vec<f64>,
    b: Vec<f64>,
}

impl Monitor for Invariants {
    fn wants_steps(&self) -> bool {
        true
    }
    fn step(&mut self, alpha: &[f64], entry: &HistoryEntry) {
        let total: f64 = alpha.iter().sum();
        assert!(
            (total - 1.0).abs() < 1e-12,
            "Σα = {total} at step {}",
            entry.iteration
        );
        assert!(
            alpha.iter().all(|&a| a >= 0.0),
            "negative α at step {}",
            entry.iteration
        );
        let (obj, _) = objective_and_gap(&self.problem_q, &self.b, alpha);
        assert!(
            obj >= self.last_objective - 1e-14 * obj.abs().max(1.0),
            "objective decreased at step {}",
            entry.iteration
        );
        assert!(entry.objective <= obj + 1e-12 * obj.abs().max(1.0));
        self.last_objective = obj;
        self.steps += 1;
    }
}

#[test]
fn feasible_and_monotone_at_every_step() {
    let data = BlobsSvc::new(60, 2, 1.0, 21, 5.0);
    for kernel in [Kernel::rbf(0.7), Kernel::linear()] {
        let problem = data.l2_svc(kernel);
        let (q, b) = dense_q(&problem);
        for algorithm in Algorithm::SINGLE_SIMPLEX {
            let mut mon = Invariants {
                last_objective: f64::NEG_INFINITY,
                steps: 0,
                problem_q: q.clone(),
                b: b.clone(),
            };
            // Plain FW does not reach 1e-9 in reasonable time; its steps are checked anyway.
            let p = SolverParams {
                record_history: true,
                max_iter: Some(if algorithm == Algorithm::Fw {
                    20_000
                } else {
                    2_000_000
                }),
                ..params(algorithm, 1e-9)
            };
            let sol = solve(&problem, &p, &mut mon).unwrap();
            assert_eq!(mon.steps, sol.stats.n_iter);
            // One entry per step, then the state the solve ended in.
            assert_eq!(sol.history.len() as u64, sol.stats.n_iter + 1);
            let last = sol.history.last().unwrap();
            assert_eq!(last.kind, StepKind::Final);
            assert_eq!(last.iteration, sol.stats.n_iter);
            assert!(
                (last.objective - sol.stats.objective).abs()
                    <= 1e-9 * sol.stats.objective.abs().max(1.0)
            );
            let s = sol.stats.steps;
            assert_eq!(
                s.toward + s.away + s.drop + s.swap_add + s.swap_drop + s.corrective,
                sol.stats.n_iter
            );
            match algorithm {
                Algorithm::Fw => assert_eq!(s.toward, sol.stats.n_iter),
                Algorithm::Mfw => assert_eq!(s.swap_add + s.swap_drop + s.corrective, 0),
                Algorithm::Bc => {
                    assert_eq!(s.corrective, sol.stats.n_iter);
                    assert!(s.inner >= s.corrective);
                }
                // swap, swap2o: pairwise and toward steps, and coreset rounds (corrective).
                _ => {
                    assert_eq!(s.away + s.drop, 0);
                    assert!(s.inner >= s.corrective);
                }
            }
        }
    }
}

#[test]
fn max_iter_stops_with_its_reason() {
    let data = BlobsSvc::new(80, 2, 0.5, 3, 100.0);
    let problem = data.l2_svc(Kernel::rbf(1.0));
    let p = SolverParams {
        max_iter: Some(5),
        ..params(Algorithm::Fw, 1e-12)
    };
    let sol = solve(&problem, &p, &mut NoMonitor).unwrap();
    assert_eq!(sol.stats.exit_reason, ExitReason::MaxIterations);
    assert_eq!(sol.stats.n_iter, 5);
}

#[test]
fn stopping_rules_are_ordered_by_strictness() {
    let data = BlobsSvc::new(100, 2, 1.0, 8, 1.0);
    let problem = data.l2_svc(Kernel::rbf(1.0));
    let fit = |p: SolverParams| solve(&problem, &p, &mut NoMonitor).unwrap();
    let loose = fit(SolverParams {
        tol: 1e-2,
        ..SolverParams::default()
    });
    let tight = fit(SolverParams {
        tol: 1e-6,
        ..SolverParams::default()
    });
    assert!(loose.stats.relative_gap <= 1e-2 && tight.stats.relative_gap <= 1e-6);
    assert!(tight.stats.n_iter >= loose.stats.n_iter);
    let meb = fit(SolverParams {
        stopping: Stopping::Meb,
        tol: 1e-6,
        ..SolverParams::default()
    });
    assert_eq!(meb.stats.exit_reason, ExitReason::Converged);
    // The MEB rule on a non-ball problem is refused.
    let lin = data.l2_svc(Kernel::linear());
    let err = solve(
        &lin,
        &SolverParams {
            stopping: Stopping::Meb,
            ..SolverParams::default()
        },
        &mut NoMonitor,
    )
    .unwrap_err();
    assert!(err.to_string().contains("minimum enclosing ball"));
}

#[test]
fn forced_resyncs_do_not_change_the_answer() {
    let data = BlobsSvc::new(70, 2, 1.0, 9, 3.0);
    let problem = data.l2_svc(Kernel::rbf(1.0));
    let a = solve(&problem, &params(Algorithm::Swap, 1e-10), &mut NoMonitor).unwrap();
    let b = solve(
        &problem,
        &SolverParams {
            resync_every: Some(7),
            ..params(Algorithm::Swap, 1e-10)
        },
        &mut NoMonitor,
    )
    .unwrap();
    assert!(b.stats.resyncs > 0);
    assert!((a.stats.objective - b.stats.objective).abs() < 1e-10 * a.stats.objective.abs());
}

#[test]
fn bc_reaches_the_optimum_of_one_class_and_regression_problems() {
    let (x, y) = blobs(40, 3, 1.0, 31);
    let features = Features::from(&x);
    let one_class =
        SimplexProblem::one_class(KernelMatrix::new(Kernel::rbf(0.5), features), 5.0).unwrap();
    let targets: Vec<f64> = (0..40).map(|i| (i as f64 * 0.37).sin() + y[i]).collect();
    let regression = SimplexProblem::l2_svr(
        KernelMatrix::new(Kernel::rbf(0.5), features),
        &targets,
        2.0,
        4.0,
    )
    .unwrap();
    for problem in [one_class, regression] {
        let (q, b, best) = dense_q_and_optimum(&problem);
        for algorithm in [Algorithm::Bc, Algorithm::Swap] {
            let sol = solve(&problem, &params(algorithm, 1e-10), &mut NoMonitor).unwrap();
            assert_eq!(sol.stats.exit_reason, ExitReason::Converged);
            let (obj, gap) = objective_and_gap(&q, &b, &sol.alpha);
            assert!(gap <= 1e-9, "{algorithm}: gap {gap}");
            assert!(
                (best - obj).abs() <= 1e-9 * best.abs().max(1.0),
                "{algorithm}: {obj} vs optimum {best}"
            );
        }
    }
}

#[test]
fn ky_is_refused_outside_binary_classification() {
    let (x, _) = blobs(20, 2, 1.0, 32);
    let problem =
        SimplexProblem::one_class(KernelMatrix::new(Kernel::rbf(0.5), Features::from(&x)), 1.0)
            .unwrap();
    let err = solve(&problem, &params(Algorithm::Ky, 1e-6), &mut NoMonitor).unwrap_err();
    assert!(err.to_string().contains("nearest-point"), "{err}");
}

/// Feasibility on both simplices and a non-increasing ‖w‖² at every `ky` step.
struct TwoSimplexInvariants {
    signs: Vec<f64>,
    q: Vec<f64>,
    last: f64,
    steps: u64,
}

impl Monitor for TwoSimplexInvariants {
    fn wants_steps(&self) -> bool {
        true
    }
    fn step(&mut self, alpha: &[f64], entry: &HistoryEntry) {
        for sign in [1.0, -1.0] {
            let total: f64 = (0..alpha.len())
                .filter(|&a| self.signs[a] == sign)
                .map(|a| alpha[a])
                .sum();
            assert!(
                (total - 1.0).abs() < 1e-12,
                "step {}: Σ = {total}",
                entry.iteration
            );
        }
        assert!(alpha.iter().all(|&a| a >= 0.0));
        let (obj, _) = objective_and_gap(&self.q, &vec![0.0; alpha.len()], alpha);
        assert!(
            obj >= self.last - 1e-13 * obj.abs().max(1.0),
            "step {}: objective went down",
            entry.iteration
        );
        self.last = obj;
        self.steps += 1;
    }
}

#[test]
fn ky_reaches_the_two_simplex_reference_optimum() {
    for (kernel, c, seed) in [
        (Kernel::rbf(0.5), 1.0, 41),
        (Kernel::rbf(0.5), 50.0, 42),
        (Kernel::linear(), 0.5, 43),
        (Kernel::poly(0.5, 1.0, 2), 2.0, 44),
    ] {
        let data = BlobsSvc::new(40, 3, 1.5, seed, c);
        let problem = data.l2_svc(kernel);
        let (q, b) = dense_q(&problem);
        let group: Vec<usize> = data.y.iter().map(|&v| usize::from(v < 0.0)).collect();
        let (_, best) = reference_optimum_blocks(&q, &b, &group);
        let mut monitor = TwoSimplexInvariants {
            signs: data.y.clone(),
            q: q.clone(),
            last: f64::NEG_INFINITY,
            steps: 0,
        };
        let p = SolverParams {
            stopping: Stopping::RelativeGap,
            ..params(Algorithm::Ky, 1e-11)
        };
        let sol = solve(&problem, &p, &mut monitor).unwrap();
        let s = &sol.stats;
        assert_eq!(s.exit_reason, ExitReason::Converged, "{kernel:?}");
        assert_eq!(monitor.steps, s.n_iter);
        assert_eq!(s.steps.toward + s.steps.away + s.steps.drop, s.n_iter);
        let (obj, _) = objective_and_gap(&q, &b, &sol.alpha);
        assert!(
            (obj - s.objective).abs() <= 1e-12 * obj.abs(),
            "{kernel:?}: objective {obj} vs reported {}",
            s.objective
        );
        assert!(
            (obj - best).abs() <= 1e-9 * best.abs(),
            "{kernel:?}: {obj} vs two-simplex optimum {best}"
        );
        assert!(sol.threshold.is_some_and(f64::is_finite));
    }
}

#[test]
fn adaptive_swap_runs_coreset_rounds_and_reaches_the_reference_optimum() {
    // Large C on overlapping blobs: a small coreset that takes many pairwise steps to balance,
    // where coreset rounds and second-order partners take over (the `rounds` module).
    let data = BlobsSvc::new(60, 3, 0.6, 11, 100.0);
    let problem = data.l2_svc(Kernel::rbf(0.5));
    let (q, b, best) = dense_q_and_optimum(&problem);
    let tol = 1e-10;
    for algorithm in [Algorithm::Swap, Algorithm::Swap2o] {
        let mut runs = Vec::new();
        for adaptive in [true, false] {
            let p = SolverParams {
                adaptive,
                ..params(algorithm, tol)
            };
            let sol = solve(&problem, &p, &mut NoMonitor).unwrap();
            assert_eq!(sol.stats.exit_reason, ExitReason::Converged);
            let what = format!("{algorithm} adaptive={adaptive}");
            assert_certified(&q, &b, &sol, tol, best, &what);
            runs.push(sol.stats);
        }
        let (on, off) = (&runs[0], &runs[1]);
        assert!(
            on.steps.corrective > 0 && on.steps.inner > 0,
            "{algorithm}: {on:?}"
        );
        assert_eq!(
            off.steps.corrective + off.steps.inner,
            0,
            "{algorithm}: {off:?}"
        );
        assert!(
            on.n_iter < off.n_iter,
            "{algorithm}: rounds replace outer steps"
        );
    }
}

#[test]
fn sampling_hands_a_sampled_iterate_to_the_full_solver_which_reaches_the_optimum() {
    // Well-separated blobs: many points, few support vectors, where sampling is meant to pay.
    let data = BlobsSvc::new(1000, 2, 4.0, 21, 10.0);
    let problem = data.l2_svc(Kernel::rbf(0.5));
    let (q, b) = dense_q(&problem);
    // The optimum to 1e-11, from the full solver (checked against the FISTA reference above).
    let best = solve(&problem, &params(Algorithm::Swap, 1e-11), &mut NoMonitor)
        .unwrap()
        .stats
        .objective;
    for algorithm in [Algorithm::Fw, Algorithm::Mfw, Algorithm::Swap] {
        let tol = if algorithm == Algorithm::Fw {
            1e-3 * best.abs()
        } else {
            1e-9
        };
        // Two random slots per step: the sampled phase runs until 4·2·|S| ≥ m, |S| = 125.
        let p = SolverParams {
            sample_size: Some(2),
            ..params(algorithm, tol)
        };
        let sol = solve(&problem, &p, &mut NoMonitor).unwrap();
        let s = &sol.stats;
        assert_eq!(s.exit_reason, ExitReason::Converged, "{algorithm}");
        assert!(
            s.sampled_steps >= 20 && s.sampled_steps <= s.n_iter,
            "{algorithm}: {s:?}"
        );
        assert_certified(&q, &b, &sol, tol, best, algorithm.name());
    }
    // A step limit inside the sampled phase ends the solve with its reason.
    let p = SolverParams {
        sample_size: Some(8),
        max_iter: Some(3),
        ..params(Algorithm::Swap, 1e-10)
    };
    let sol = solve(&problem, &p, &mut NoMonitor).unwrap();
    assert_eq!(sol.stats.exit_reason, ExitReason::MaxIterations);
    assert_eq!((sol.stats.n_iter, sol.stats.sampled_steps), (3, 3));
}

#[test]
fn sampling_is_refused_where_it_cannot_work() {
    let data = BlobsSvc::new(20, 2, 2.0, 3, 1.0);
    let problem = data.l2_svc(Kernel::rbf(0.5));
    for (algorithm, size, needle) in [
        (Algorithm::Swap, 0, "must be positive"),
        (Algorithm::Swap2o, 59, "'swap2o'"),
        (Algorithm::Bc, 59, "'bc'"),
        (Algorithm::Ky, 59, "'ky'"),
    ] {
        let p = SolverParams {
            sample_size: Some(size),
            ..params(algorithm, 1e-6)
        };
        let err = solve(&problem, &p, &mut NoMonitor).unwrap_err().to_string();
        assert!(err.contains("sample_size") && err.contains(needle), "{err}");
    }
}

/// The solution's certificate recomputed from scratch with the dense Q: the reported objective
/// is the true one, the true gap is within `tol`, and the objective is within that gap of
/// `best` (never above it); α is on the simplex.
fn assert_certified(
    q: &[f64],
    b: &[f64],
    sol: &fwsvm::solver::Solution,
    tol: f64,
    best: f64,
    what: &str,
) {
    let (obj, gap) = objective_and_gap(q, b, &sol.alpha);
    let scale = best.abs().max(1.0);
    assert!(
        (obj - sol.stats.objective).abs() <= 1e-12 * obj.abs().max(1.0),
        "{what}: objective {obj} vs reported {}",
        sol.stats.objective
    );
    assert!(gap <= tol * 1.0001 + 1e-13, "{what}: gap {gap} above {tol}");
    assert!(
        best - obj <= gap + 1e-11 * scale,
        "{what}: {obj} below {best} by more than {gap}"
    );
    assert!(
        obj - best <= 1e-11 * scale,
        "{what}: {obj} above the optimum {best}"
    );
    let total: f64 = sol.alpha.iter().sum();
    assert!(
        (total - 1.0).abs() < 1e-12 && sol.alpha.iter().all(|&a| a >= 0.0),
        "{what}: off the simplex"
    );
}

/// Shrinking on real-valued shared data (skipped when `../shared/data`, or `FWSVM_DATA`, is
/// absent): the fit shrank, and the duality gap recomputed from scratch over **every** row
/// (G = Qα entry by entry from the support, no cache, no shrinking) meets the stopping rule,
/// also where the column cache stores f32 (shuttle: 43,500 rows).
#[test]
fn shrinking_certifies_on_every_row_of_real_valued_shared_data() {
    use fwsvm::data::libsvm::{ReadOptions, Source, Targets, read_libsvm_sources};
    let dir = std::path::PathBuf::from(
        std::env::var("FWSVM_DATA").unwrap_or_else(|_| "../shared/data".into()),
    );
    // (file, positive class, γ, C): binary one-against-the-rest problems.
    let cases = [
        ("satimage.scale", 1.0, 1.0 / 36.0, 8.0),
        ("shuttle.scale", 1.0, 2.0, 32.0),
    ];
    for (file, positive, gamma, c) in cases {
        let path = dir.join(file);
        if !path.exists() {
            eprintln!("{} absent: skipped", path.display());
            continue;
        }
        let data = read_libsvm_sources(&[Source::Path(&path)], &ReadOptions::default()).unwrap();
        let Targets::Single(labels) = &data[0].y else {
            panic!("{file}: single labels expected")
        };
        let y: Vec<f64> = labels
            .iter()
            .map(|&l| if l == positive { 1.0 } else { -1.0 })
            .collect();
        let m = y.len();
        let problem = SimplexProblem::l2_svc(
            KernelMatrix::new(Kernel::rbf(gamma), Features::Sparse(data[0].x.view())),
            &y,
            &vec![c; m],
        )
        .unwrap();
        let p = SolverParams {
            tol: 1e-3,
            ..SolverParams::default()
        };
        let sol = solve(&problem, &p, &mut NoMonitor).unwrap();
        let s = &sol.stats;
        assert_eq!(s.exit_reason, ExitReason::Converged, "{file}");
        assert!(s.shrinks > 0, "{file}: did not shrink: {s:?}");
        let support: Vec<usize> = (0..m).filter(|&a| sol.alpha[a] > 0.0).collect();
        let g: Vec<f64> = (0..m)
            .map(|t| {
                support
                    .iter()
                    .map(|&a| sol.alpha[a] * problem.q_entry(a, t))
                    .sum()
            })
            .collect();
        let quad: f64 = support.iter().map(|&a| sol.alpha[a] * g[a]).sum();
        let top = g
            .iter()
            .map(|&gt| -2.0 * gt)
            .fold(f64::NEG_INFINITY, f64::max);
        let gap = top + 2.0 * quad;
        assert!(
            gap <= 1e-3 * quad * (1.0 + 1e-9),
            "{file}: gap {gap} over all {m} rows, objective {}",
            -quad
        );
        // The reported objective carries the column cache's f32 rounding (≤ 2⁻²⁴ relative).
        assert!((s.objective + quad).abs() <= 1e-6 * quad, "{file}");
    }
}
