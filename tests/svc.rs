//! The Rust SVC API: fitting, prediction, errors and thread-count invariance.

mod common;

use common::blobs;
use fwsvm::Samples;
use fwsvm::{Algorithm, DenseMatrix, ExitReason, FwsvmError, Kernel, Loss, Svc};

#[test]
fn fits_and_predicts_blobs_with_every_algorithm() {
    let (x, y) = blobs(400, 3, 3.0, 1);
    for algorithm in Algorithm::ALL {
        let model = Svc::params()
            .loss(Loss::SquaredHinge)
            .c(1.0)
            .kernel(Kernel::rbf(0.5))
            .algorithm(algorithm)
            .max_iter(Some(200_000))
            .tol(if algorithm == Algorithm::Fw {
                1e-2
            } else {
                1e-3
            })
            .fit(&x, &y)
            .unwrap();
        let pred = model.predict(&x).unwrap();
        let acc = pred.iter().zip(&y).filter(|(p, t)| p == t).count() as f64 / y.len() as f64;
        assert!(acc > 0.9, "{algorithm}: {acc}");
        assert_eq!(model.stats()[0].exit_reason, ExitReason::Converged);
        let [neg, pos] = model.n_support_per_class()[..] else {
            panic!("two classes")
        };
        assert_eq!(neg + pos, model.n_support());
        // Simplex weights of the support vectors sum to one (per class for `ky`'s two simplices).
        let simplices = if algorithm == Algorithm::Ky { 2.0 } else { 1.0 };
        assert!((model.alpha().iter().sum::<f64>() - simplices).abs() < 1e-12);
    }
}

#[test]
fn any_two_label_values_work() {
    let (x, y) = blobs(100, 2, 3.0, 2);
    let labels: Vec<f64> = y.iter().map(|&v| if v > 0.0 { 7.0 } else { 3.0 }).collect();
    let model = Svc::params().fit(&x, &labels).unwrap();
    assert_eq!(model.classes(), [3.0, 7.0]);
    assert!(
        model
            .predict(&x)
            .unwrap()
            .iter()
            .all(|&p| p == 3.0 || p == 7.0)
    );
}

#[test]
fn models_do_not_depend_on_the_thread_count() {
    let (x, y) = blobs(9_000, 8, 2.5, 3);
    let fit = |threads| {
        Svc::params()
            .c(1.0)
            .kernel(Kernel::rbf(0.2))
            .n_threads(Some(threads))
            .seed(5)
            .fit(&x, &y)
            .unwrap()
    };
    let (one, two) = (fit(1), fit(2));
    assert_eq!(one.support(), two.support());
    assert_eq!(one.dual_coef(), two.dual_coef());
    assert_eq!(one.intercept(), two.intercept());
    assert_eq!(one.stats()[0].n_iter, two.stats()[0].n_iter);
}

#[test]
fn sample_weights_scale_the_penalty_and_zero_weights_drop_samples() {
    let (x, y) = blobs(200, 2, 1.0, 4);
    let base = Svc::params().c(2.0).tol(1e-8).check().unwrap();
    let plain = base.fit(&x, &y).unwrap();
    let ones = vec![1.0; 200];
    let weighted = base
        .fit_weighted(
            Samples::new((&x).into(), &y).weighted(Some(&ones)),
            &mut fwsvm::solver::NoMonitor,
        )
        .unwrap();
    assert_eq!(plain.support(), weighted.support());
    // Zero weight on the first 50 samples equals training without them.
    let mut w = ones.clone();
    w[..50].iter_mut().for_each(|v| *v = 0.0);
    let dropped = base
        .fit_weighted(
            Samples::new((&x).into(), &y).weighted(Some(&w)),
            &mut fwsvm::solver::NoMonitor,
        )
        .unwrap();
    let rows: Vec<Vec<f64>> = (50..200)
        .map(|i| x.as_slice()[i * 2..i * 2 + 2].to_vec())
        .collect();
    let sub = base
        .fit(&DenseMatrix::from_rows(&rows).unwrap(), &y[50..])
        .unwrap();
    let shifted: Vec<usize> = sub.support().iter().map(|&i| i + 50).collect();
    assert_eq!(dropped.support(), &shifted[..]);
    let df_a = dropped.decision_function(&x).unwrap();
    let df_b = sub.decision_function(&x).unwrap();
    for (a, b) in df_a.iter().zip(&df_b) {
        assert!((a - b).abs() < 1e-9);
    }
}

#[test]
fn bad_inputs_give_errors() {
    let (x, y) = blobs(20, 2, 1.0, 5);
    let one_class = vec![1.0; 20];
    assert!(matches!(
        Svc::params().fit(&x, &one_class),
        Err(FwsvmError::Classes(_))
    ));
    // More than two classes are fitted one-vs-one (no longer an error).
    let three: Vec<f64> = (0..20).map(|i| (i % 3) as f64).collect();
    assert_eq!(
        Svc::params().fit(&x, &three).unwrap().classes(),
        [0.0, 1.0, 2.0]
    );
    assert!(matches!(
        Svc::params().fit(&x, &y[..5]),
        Err(FwsvmError::InvalidInput(_))
    ));
    let mut bad = x.clone().into_vec();
    bad[7] = f64::NAN;
    let bad = DenseMatrix::new(bad, 20, 2).unwrap();
    assert!(matches!(
        Svc::params().fit(&bad, &y),
        Err(FwsvmError::NonFinite { row: 3, .. })
    ));
    for p in [
        Svc::params().c(-1.0),
        Svc::params().tol(0.0),
        Svc::params().kernel(Kernel::rbf(-1.0)),
    ] {
        assert!(matches!(
            p.check(),
            Err(FwsvmError::InvalidParameter { .. })
        ));
    }
    let empty = DenseMatrix::new(vec![], 0, 2).unwrap();
    assert!(matches!(
        Svc::params().fit(&empty, &[]),
        Err(FwsvmError::InvalidInput(_))
    ));
    assert!("newton".parse::<Algorithm>().is_err());
}

#[test]
fn ky_model_is_the_squared_hinge_svm_with_free_bias() {
    // For min ½‖w‖² + (C/2)Σξ² s.t. y_i f(x_i) ≥ 1 − ξ_i (f with a free bias), the optimum has
    // y_i f(x_i) = 1 − α_i/C on support vectors (α_i = y_i·dual_coef_i) and ≥ 1 elsewhere,
    // with Σ y_i α_i = 0.
    let (x, y) = blobs(120, 2, 1.5, 9);
    let c = 3.0;
    let model = Svc::params()
        .loss(Loss::SquaredHinge)
        .c(c)
        .kernel(Kernel::rbf(0.7))
        .algorithm(Algorithm::Ky)
        .tol(1e-12)
        .fit(&x, &y)
        .unwrap();
    assert_eq!(model.stats()[0].exit_reason, ExitReason::Converged);
    let f = model.decision_function(&x).unwrap();
    let support = model.support();
    let coef = model.dual_coef();
    let balance: f64 = coef.iter().sum();
    assert!(balance.abs() < 1e-9, "Σ y α = {balance}");
    for i in 0..y.len() {
        let margin = y[i] * f[i];
        match support.iter().position(|&s| s == i) {
            Some(k) => {
                let alpha_std = coef[k] * y[i];
                assert!(alpha_std > 0.0);
                assert!(
                    (margin - (1.0 - alpha_std / c)).abs() < 1e-7,
                    "row {i}: y f = {margin}, 1 − α/C = {}",
                    1.0 - alpha_std / c
                );
            }
            None => assert!(margin >= 1.0 - 1e-7, "row {i}: y f = {margin}"),
        }
    }
}

#[test]
fn warm_start_from_another_c_converges_to_the_cold_solution() {
    let (x, y) = blobs(300, 3, 1.0, 12);
    let base = Svc::params()
        .loss(Loss::SquaredHinge)
        .kernel(Kernel::rbf(0.5))
        .tol(1e-8);
    let first = base.clone().c(1.0).fit(&x, &y).unwrap();
    let mut alpha = vec![0.0; y.len()];
    for (&i, &a) in first.support().iter().zip(first.alpha()) {
        alpha[i] = a;
    }
    let cold = base.clone().c(5.0).fit(&x, &y).unwrap();
    let warm = base
        .clone()
        .c(5.0)
        .warm_start(Some(alpha))
        .fit(&x, &y)
        .unwrap();
    let (c, w) = (&cold.stats()[0], &warm.stats()[0]);
    assert!((c.objective - w.objective).abs() <= 1e-7 * c.objective.abs());
    assert!(
        w.n_iter < c.n_iter,
        "warm {} vs cold {} steps",
        w.n_iter,
        c.n_iter
    );
    let err = base
        .c(5.0)
        .warm_start(Some(vec![1.0; 3]))
        .fit(&x, &y)
        .unwrap_err();
    assert!(matches!(err, FwsvmError::InvalidParameter { .. }), "{err}");
}
