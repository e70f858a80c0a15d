//! Blocked working sets of the hinge loss (`SolverParams::working_set`): the same optimum as
//! per-step pairs on dense, CSR, weighted and multiclass problems with every kernel, the
//! optimality conditions recomputed exactly on every row, and results that do not depend on
//! the thread count.

mod common;

use common::{blobs, hinge_rbf};
use fwsvm::data::Features;
use fwsvm::kernel::KernelMatrix;
use fwsvm::parallel::with_threads;
use fwsvm::solver::{NoMonitor, solve_box};
use fwsvm::{BoxProblem, CsrMatrix, DenseMatrix, Kernel, SolverParams};

const KERNELS: [Kernel; 5] = [
    Kernel::Rbf { gamma: 0.4 },
    Kernel::Linear,
    Kernel::Poly {
        gamma: 0.3,
        coef0: 1.0,
        degree: 3,
    },
    Kernel::Sigmoid {
        gamma: 0.05,
        coef0: -0.5,
    },
    Kernel::Laplacian { gamma: 0.3 },
];

/// The largest KKT violation max_{I_up} v − min_{I_low} v with v recomputed exactly from α.
fn exact_violation(km: &KernelMatrix<'_>, y: &[f64], c: &[f64], alpha: &[f64]) -> f64 {
    let m = y.len();
    let support: Vec<usize> = (0..m).filter(|&s| alpha[s] > 0.0).collect();
    let (mut hi, mut lo) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in 0..m {
        let v = y[t]
            - support
                .iter()
                .map(|&s| alpha[s] * y[s] * km.entry(s, t))
                .sum::<f64>();
        let (grow, shrink) = if y[t] > 0.0 {
            (alpha[t] < c[t], alpha[t] > 0.0)
        } else {
            (alpha[t] > 0.0, alpha[t] < c[t])
        };
        if grow {
            hi = hi.max(v);
        }
        if shrink {
            lo = lo.min(v);
        }
    }
    hi - lo
}

/// Solves with per-step pairs and with blocked working sets of `q`, and checks both: the
/// certificate on every row (exact violation ≤ tol), the same dual objective to within what
/// tol allows, and decision values that agree.
fn same_optimum(what: &str, data: Features<'_>, y: &[f64], c: &[f64], kernel: Kernel, q: usize) {
    let tol = 1e-5;
    let km = KernelMatrix::new(kernel, data);
    let problem = BoxProblem::hinge_svc(km.clone(), y, c).unwrap();
    let solve = |working_set| {
        let params = SolverParams {
            tol,
            working_set: Some(working_set),
            // f32 columns, a few hundred of them: the rounding bound and the final exact
            // check are exercised too.
            cache_size_mb: 2.0,
            max_iter: Some(2_000_000),
            ..SolverParams::default()
        };
        solve_box(&problem, &params, &mut NoMonitor).unwrap()
    };
    let pairs = solve(0);
    let blocked = solve(q);
    for (name, s) in [("pairs", &pairs), ("blocked", &blocked)] {
        assert_eq!(
            s.stats.exit_reason,
            fwsvm::ExitReason::Converged,
            "{what} {kernel:?} {name}"
        );
        let violation = exact_violation(&km, y, c, &s.alpha);
        assert!(
            violation <= 2.0 * tol,
            "{what} {kernel:?} {name}: exact violation {violation:e}"
        );
        let balance: f64 = s.alpha.iter().zip(y).map(|(a, t)| a * t).sum();
        assert!(
            balance.abs() < 1e-8,
            "{what} {kernel:?} {name}: yᵀα = {balance}"
        );
    }
    let (d1, d2) = (pairs.stats.objective, blocked.stats.objective);
    assert!(
        (d1 - d2).abs() <= 1e-6 * d1.abs().max(1.0) + tol * c.iter().sum::<f64>() * 1e-3,
        "{what} {kernel:?}: dual {d1} (pairs) vs {d2} (blocked)"
    );
    // Decision values on the training rows.
    let m = y.len();
    let decision = |alpha: &[f64], bias: f64| -> Vec<f64> {
        (0..m)
            .map(|t| {
                (0..m)
                    .filter(|&s| alpha[s] > 0.0)
                    .map(|s| alpha[s] * y[s] * km.entry(s, t))
                    .sum::<f64>()
                    + bias
            })
            .collect()
    };
    let f1 = decision(&pairs.alpha, pairs.bias);
    let f2 = decision(&blocked.alpha, blocked.bias);
    let scale = f1.iter().fold(1.0f64, |a, v| a.max(v.abs()));
    for (a, b) in f1.iter().zip(&f2) {
        assert!(
            (a - b).abs() <= 1e-3 * scale,
            "{what} {kernel:?}: decision {a} (pairs) vs {b} (blocked)"
        );
    }
}

fn csr_of(x: &DenseMatrix) -> CsrMatrix {
    let (m, d) = (x.n_rows(), x.n_cols());
    let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
    for i in 0..m {
        for (f, &v) in x.view().row(i).iter().enumerate() {
            // Every third value dropped: genuinely sparse rows.
            if (i + f) % 3 != 0 {
                indices.push(f as u32);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    CsrMatrix::new(indptr, indices, data, d).unwrap()
}

#[test]
fn blocked_and_per_step_reach_the_same_optimum_on_dense_data_with_every_kernel() {
    let (x, y) = blobs(600, 4, 1.2, 3);
    let c = vec![2.0; y.len()];
    for kernel in KERNELS {
        same_optimum("dense", Features::Dense(x.view()), &y, &c, kernel, 64);
    }
}

#[test]
fn blocked_and_per_step_reach_the_same_optimum_on_csr_and_weighted_problems() {
    let (x, y) = blobs(500, 6, 1.0, 11);
    let csr = csr_of(&x);
    // Class weights as LIBSVM's -wi: C_i = C · w_{y_i}; and a working set larger than what
    // a round can fill with violators on one side.
    let weighted: Vec<f64> = y.iter().map(|&t| if t > 0.0 { 5.0 } else { 0.7 }).collect();
    for kernel in [KERNELS[0], KERNELS[2]] {
        same_optimum(
            "csr",
            Features::Sparse(csr.view()),
            &y,
            &weighted,
            kernel,
            48,
        );
        same_optimum(
            "weighted dense",
            Features::Dense(x.view()),
            &y,
            &weighted,
            kernel,
            200,
        );
    }
}

#[test]
fn blocked_working_sets_shrink_and_certify_with_an_f32_cache() {
    // Large enough to shrink (≥ 2000 rows) and to take blocked working sets by default.
    let (x, y) = blobs(3000, 2, 0.8, 5);
    let c = vec![4.0; y.len()];
    let km = KernelMatrix::new(Kernel::rbf(1.5), Features::Dense(x.view()));
    let problem = BoxProblem::hinge_svc(km.clone(), &y, &c).unwrap();
    let tol = 1e-3;
    let params = SolverParams {
        tol,
        working_set: Some(32),
        cache_size_mb: 2.0,
        ..SolverParams::default()
    };
    let s = solve_box(&problem, &params, &mut NoMonitor).unwrap();
    assert!(s.stats.shrinks > 0, "the problem shrinks");
    assert_eq!(
        s.stats.cache_precision,
        fwsvm::kernel::CachePrecision::Float32
    );
    let violation = exact_violation(&km, &y, &c, &s.alpha);
    assert!(violation <= tol, "exact violation {violation:e}");
}

#[test]
fn blocked_working_sets_do_not_depend_on_the_thread_count() {
    let (x, y) = blobs(20_000, 3, 1.0, 9);
    let c = vec![1.0; y.len()];
    let km = KernelMatrix::new(Kernel::rbf(0.5), Features::Dense(x.view()));
    let problem = BoxProblem::hinge_svc(km, &y, &c).unwrap();
    let params = SolverParams {
        tol: 1e-4,
        working_set: Some(64),
        ..SolverParams::default()
    };
    let fit = |threads| {
        with_threads(Some(threads), || {
            solve_box(&problem, &params, &mut NoMonitor).unwrap()
        })
        .unwrap()
    };
    let (one, two) = (fit(1), fit(2));
    assert_eq!(one.alpha, two.alpha, "1 and 2 threads");
    assert_eq!(one.bias, two.bias);
    assert_eq!(one.stats.n_iter, two.stats.n_iter);
}

#[test]
fn multiclass_models_agree_between_the_two_working_sets() {
    // Three classes of 1,200 rows: every pair has 2,400 rows.
    let (x2, y2) = blobs(3600, 3, 2.0, 21);
    let y: Vec<f64> = y2
        .iter()
        .enumerate()
        .map(|(i, &t)| if i % 3 == 0 { 2.0 } else { t })
        .collect();
    let fit = |working_set| {
        hinge_rbf(1.0, 0.5)
            .tol(1e-6)
            .working_set(working_set)
            .fit(&x2, &y)
            .unwrap()
    };
    let (pairs, blocked, auto) = (fit(Some(0)), fit(Some(64)), fit(None));
    let p = pairs.decision_function(&x2).unwrap();
    for other in [&blocked, &auto] {
        let o = other.decision_function(&x2).unwrap();
        for (a, b) in p.iter().zip(o.iter()) {
            assert!((a - b).abs() < 1e-4, "{a} vs {b}");
        }
        assert_eq!(pairs.predict(&x2).unwrap(), other.predict(&x2).unwrap());
    }
}

#[test]
fn the_certificate_refines_v_near_the_extremes_and_holds_on_every_row() {
    // f32 columns (an f32 exp for rbf and laplacian) and a tight tol: the rounding bound grows
    // past tol / 20, so before it stops the solver recomputes v exactly on the rows that could
    // hold an extreme and on the support vectors (counted in `resyncs`). The exact violation on
    // every row must still be within tol, per-step and blocked alike.
    let (x, y) = blobs(3000, 3, 1.0, 11);
    let c = vec![50.0; y.len()];
    let tol = 1e-4;
    let poly = Kernel::Poly {
        gamma: 0.3,
        coef0: 1.0,
        degree: 2,
    };
    for kernel in [Kernel::rbf(0.8), Kernel::Laplacian { gamma: 0.5 }, poly] {
        for q in [0, 32] {
            let km = KernelMatrix::new(kernel, Features::Dense(x.view()));
            let problem = BoxProblem::hinge_svc(km.clone(), &y, &c).unwrap();
            let params = SolverParams {
                tol,
                working_set: Some(q),
                cache_precision: fwsvm::kernel::CachePrecision::Float32,
                ..SolverParams::default()
            };
            let s = solve_box(&problem, &params, &mut NoMonitor).unwrap();
            let what = format!("{kernel:?}, q {q}");
            assert!(s.stats.resyncs >= 1, "{what}: the certificate was refined");
            let violation = exact_violation(&km, &y, &c, &s.alpha);
            assert!(violation <= tol, "{what}: exact violation {violation:e}");
        }
    }
}
