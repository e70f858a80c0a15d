//! The hinge-loss SVC (`Loss::Hinge`, `solver::solve_box`): against a from-scratch reference
//! solver, its optimality conditions recomputed exactly, shrinking, thread-count invariance.

mod common;

use common::{blobs, hinge_rbf};
use fwsvm::Samples;
use fwsvm::data::Features;
use fwsvm::kernel::KernelMatrix;
use fwsvm::solver::{NoMonitor, solve_box};
use fwsvm::{
    Algorithm, BoxProblem, DenseMatrix, ExitReason, FwsvmError, Kernel, Loss, SolverParams, Svc,
};

/// The dual min ½αᵀQα − Σα s.t. 0 ≤ α ≤ C, yᵀα = 0 solved by the textbook SMO written from
/// scratch here: dense Q, the maximal violating pair (first-order selection, unlike the
/// library's second-order one), exact clipped steps, to a violation of 1e-12. Returns α and
/// the bias (the mean over free vectors of −y∇).
fn reference(k: &[f64], y: &[f64], c: f64) -> (Vec<f64>, f64) {
    let m = y.len();
    let mut alpha = vec![0.0; m];
    let mut grad = vec![-1.0; m]; // ∇ = Qα − 1
    for _ in 0..1_000_000 {
        // y_t α_t can grow (I_up) / shrink (I_low); −y∇ is maximal / minimal there.
        let up = |t: usize| (y[t] > 0.0 && alpha[t] < c) || (y[t] < 0.0 && alpha[t] > 0.0);
        let low = |t: usize| (y[t] > 0.0 && alpha[t] > 0.0) || (y[t] < 0.0 && alpha[t] < c);
        let score = |t: usize| -y[t] * grad[t];
        let i = (0..m)
            .filter(|&t| up(t))
            .max_by(|&a, &b| score(a).total_cmp(&score(b)))
            .unwrap();
        let j = (0..m)
            .filter(|&t| low(t))
            .min_by(|&a, &b| score(a).total_cmp(&score(b)))
            .unwrap();
        if score(i) - score(j) < 1e-12 {
            break;
        }
        // Move y_i α_i up by t and y_j α_j down by t: the exact step, clipped to the box.
        let curvature = (k[i * m + i] + k[j * m + j] - 2.0 * k[i * m + j]).max(1e-12);
        let mut t = (score(i) - score(j)) / curvature;
        let room = |s: usize, grow: bool| {
            let grows_alpha = (y[s] > 0.0) == grow;
            if grows_alpha { c - alpha[s] } else { alpha[s] }
        };
        t = t.min(room(i, true)).min(room(j, false));
        alpha[i] += y[i] * t;
        alpha[j] -= y[j] * t;
        for s in 0..m {
            grad[s] += y[s] * t * (k[s * m + i] - k[s * m + j]);
        }
    }
    let free: Vec<usize> = (0..m)
        .filter(|&t| alpha[t] > 1e-9 && alpha[t] < c - 1e-9)
        .collect();
    let bias = free.iter().map(|&t| -y[t] * grad[t]).sum::<f64>() / free.len() as f64;
    (alpha, bias)
}

fn gram(x: &DenseMatrix, kernel: Kernel) -> Vec<f64> {
    let km = KernelMatrix::new(kernel, Features::Dense(x.view()));
    let m = x.n_rows();
    (0..m * m).map(|e| km.entry(e / m, e % m)).collect()
}

fn decision(k: &[f64], y: &[f64], alpha: &[f64], bias: f64) -> Vec<f64> {
    let m = y.len();
    (0..m)
        .map(|r| (0..m).map(|s| alpha[s] * y[s] * k[r * m + s]).sum::<f64>() + bias)
        .collect()
}

fn params(tol: f64) -> SolverParams {
    SolverParams {
        tol,
        ..SolverParams::default()
    }
}

#[test]
fn equals_a_reference_smo_for_every_kernel() {
    let (x, y) = blobs(80, 3, 1.2, 11);
    for (kernel, c) in [
        (Kernel::rbf(0.4), 1.0),
        (Kernel::rbf(2.0), 10.0),
        (Kernel::Linear, 0.5),
        (Kernel::poly(0.3, 1.0, 3), 1.0),
        (Kernel::Laplacian { gamma: 0.3 }, 2.0),
    ] {
        let k = gram(&x, kernel);
        let (ref_alpha, ref_bias) = reference(&k, &y, c);
        let problem = BoxProblem::hinge_svc(
            KernelMatrix::new(kernel, Features::Dense(x.view())),
            &y,
            &vec![c; y.len()],
        )
        .unwrap();
        let solution = solve_box(&problem, &params(1e-9), &mut NoMonitor).unwrap();
        assert_eq!(solution.stats.exit_reason, ExitReason::Converged);
        let got = decision(&k, &y, &solution.alpha, solution.bias);
        let want = decision(&k, &y, &ref_alpha, ref_bias);
        let scale = want.iter().fold(1.0f64, |a, &v| a.max(v.abs()));
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= 1e-6 * scale,
                "{kernel:?} C={c}: decision value {g} vs reference {w}"
            );
        }
        // Equal duals: the same objective; a non-negative, small duality gap.
        let dual = |a: &[f64]| {
            let m = y.len();
            a.iter().sum::<f64>()
                - 0.5
                    * (0..m * m)
                        .map(|e| a[e / m] * a[e % m] * y[e / m] * y[e % m] * k[e])
                        .sum::<f64>()
        };
        let (d, d_ref) = (dual(&solution.alpha), dual(&ref_alpha));
        assert!(
            (d - d_ref).abs() <= 1e-8 * d_ref.abs().max(1.0),
            "{d} vs {d_ref}"
        );
        assert!(solution.stats.gap >= -1e-9 && solution.stats.relative_gap < 1e-6);
    }
}

/// The optimality conditions hold on the exact gradient: the box, yᵀα = 0, and a maximal
/// violation at most tol (here with an f32 cache and shrinking on a problem large enough to
/// shrink, so the certificate's rebuild and the left-out rows' updates are both exercised).
#[test]
fn optimality_conditions_hold_exactly_with_shrinking_and_an_f32_cache() {
    let (x, y) = blobs(3000, 2, 0.8, 5);
    let kernel = Kernel::rbf(1.5);
    let c = 4.0;
    let km = KernelMatrix::new(kernel, Features::Dense(x.view()));
    let problem = BoxProblem::hinge_svc(km.clone(), &y, &vec![c; y.len()]).unwrap();
    let tol = 1e-3;
    let solver = SolverParams {
        cache_size_mb: 2.0, // f32 columns, a few hundred of them
        ..params(tol)
    };
    let solution = solve_box(&problem, &solver, &mut NoMonitor).unwrap();
    assert!(solution.stats.shrinks > 0, "the problem shrinks");
    assert_eq!(
        solution.stats.cache_precision,
        fwsvm::kernel::CachePrecision::Float32
    );
    let alpha = &solution.alpha;
    assert!(alpha.iter().all(|&a| (0.0..=c).contains(&a)));
    let balance: f64 = alpha.iter().zip(&y).map(|(a, t)| a * t).sum();
    assert!(balance.abs() < 1e-9, "yᵀα = {balance}");
    // v_t = −y_t ∇_t = y_t − Σ_s α_s y_s k(x_s, x_t), exactly.
    let m = y.len();
    let support: Vec<usize> = (0..m).filter(|&s| alpha[s] > 0.0).collect();
    let v: Vec<f64> = (0..m)
        .map(|t| {
            y[t] - support
                .iter()
                .map(|&s| alpha[s] * y[s] * km.entry(s, t))
                .sum::<f64>()
        })
        .collect();
    let (mut hi, mut lo) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in 0..m {
        let (grow, shrink) = if y[t] > 0.0 {
            (alpha[t] < c, alpha[t] > 0.0)
        } else {
            (alpha[t] > 0.0, alpha[t] < c)
        };
        if grow {
            hi = hi.max(v[t]);
        }
        if shrink {
            lo = lo.min(v[t]);
        }
    }
    assert!(hi - lo <= tol, "maximal violation {} > {tol}", hi - lo);
}

#[test]
fn shrinking_reaches_the_same_model_and_threads_do_not_change_it() {
    let (x, y) = blobs(2500, 3, 1.0, 9);
    let fit = |shrinking: bool, threads: usize| {
        hinge_rbf(2.0, 0.5)
            .tol(1e-6)
            .shrinking(shrinking)
            .n_threads(Some(threads))
            .fit(&x, &y)
            .unwrap()
    };
    let on = fit(true, 1);
    let off = fit(false, 1);
    assert!(on.stats()[0].shrinks > 0 && off.stats()[0].shrinks == 0);
    let (f_on, f_off) = (
        on.decision_function(&x).unwrap(),
        off.decision_function(&x).unwrap(),
    );
    for (a, b) in f_on.iter().zip(&f_off) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }
    let two = fit(true, 2);
    assert_eq!(on.alpha(), two.alpha(), "1 and 2 threads");
    assert_eq!(on.intercept(), two.intercept());
    assert_eq!(on.alpha(), fit(true, 1).alpha(), "run to run");
}

#[test]
fn one_vs_one_pairs_solve_the_hinge_loss() {
    // Three blobs: every pair is a hinge-loss problem, so its coefficients y_s α_s sum to zero
    // (yᵀα = 0) and lie within ±C.
    let (x2, y2) = blobs(300, 2, 4.0, 3);
    let mut values = x2.as_slice().to_vec();
    let mut labels: Vec<f64> = y2
        .iter()
        .map(|&v| if v > 0.0 { 1.0 } else { 0.0 })
        .collect();
    for i in 0..100 {
        values.extend([x2.as_slice()[2 * i] + 12.0, x2.as_slice()[2 * i + 1]]);
        labels.push(2.0);
    }
    let x = DenseMatrix::new(values, 400, 2).unwrap();
    let c = 3.0;
    let params = hinge_rbf(c, 0.5).check().unwrap();
    let fit = params
        .fit_ovo(
            Samples::new(Features::Dense(x.view()), &labels),
            &mut NoMonitor,
        )
        .expect("one-vs-one fit");
    assert_eq!(fit.pairs.len(), 3);
    for pair in &fit.pairs {
        assert_eq!(pair.stats.exit_reason, ExitReason::Converged);
        let sum: f64 = pair.coef.iter().sum();
        assert!(
            sum.abs() < 1e-9,
            "pair ({}, {}): Σ y α = {sum}",
            pair.i,
            pair.j
        );
        assert!(pair.coef.iter().all(|a| a.abs() <= c));
    }
}

/// A warm start from the solution at another C (scaled by C_new/C_old) reaches the cold fit's
/// model; arbitrary weights are made feasible first.
#[test]
fn warm_starts_reach_the_cold_optimum() {
    let (x, y) = blobs(600, 2, 1.0, 4);
    let fit = |c: f64, warm: Option<Vec<f64>>| {
        hinge_rbf(c, 0.7)
            .tol(1e-6)
            .warm_start(warm)
            .fit(&x, &y)
            .unwrap()
    };
    let first = fit(1.0, None);
    let mut scaled = vec![0.0; y.len()];
    for (&s, &a) in first.support().iter().zip(first.alpha()) {
        scaled[s] = a * 4.0;
    }
    let cold = fit(4.0, None);
    let f_cold = cold.decision_function(&x).unwrap();
    for warm in [scaled, (0..y.len()).map(|i| (i % 7) as f64).collect()] {
        let model = fit(4.0, Some(warm));
        let f = model.decision_function(&x).unwrap();
        for (a, b) in f.iter().zip(&f_cold) {
            assert!((a - b).abs() < 1e-4, "{a} vs {b}");
        }
    }
}

#[test]
fn the_hinge_loss_refuses_what_belongs_to_the_simplex() {
    let (x, y) = blobs(50, 2, 3.0, 1);
    let hinge = || Svc::params().loss(Loss::Hinge);
    let err = hinge().algorithm(Algorithm::Bc).fit(&x, &y).unwrap_err();
    assert!(matches!(err, FwsvmError::InvalidParameter { .. }), "{err}");
    assert!(err.to_string().contains("swap"));
    assert!(hinge().algorithm(Algorithm::Swap2o).fit(&x, &y).is_ok());
    assert_eq!("hinge".parse::<Loss>().unwrap(), Loss::Hinge);
    assert!("l1".parse::<Loss>().is_err());
}
