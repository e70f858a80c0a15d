//! The linear models from Rust: the `dcd` path of the squared-hinge SVC against the kernel
//! solver, and mini-batch SGD.

mod common;

use common::blobs;
use fwsvm::solver::{NoMonitor, Schedule, SgdParams, fit_sgd};
use fwsvm::{Algorithm, ExitReason, Kernel, Loss, Svc};

#[test]
fn dcd_reaches_the_certified_optimum_of_swap() {
    let (x, y) = blobs(300, 4, 1.0, 7);
    let fit = |algorithm| {
        Svc::params()
            .loss(Loss::SquaredHinge)
            .c(2.0)
            .kernel(Kernel::Linear)
            .algorithm(algorithm)
            .tol(1e-9)
            .fit(&x, &y)
            .unwrap()
    };
    let (dcd, swap) = (fit(Algorithm::Dcd), fit(Algorithm::Swap));
    assert_eq!(dcd.stats()[0].exit_reason, ExitReason::Converged);
    assert!(dcd.stats()[0].relative_gap <= 1e-9);
    assert_eq!(dcd.stats()[0].columns_computed, 0);
    let (a, b) = (
        dcd.decision_function(&x).unwrap(),
        swap.decision_function(&x).unwrap(),
    );
    for (u, v) in a.iter().zip(&b) {
        assert!((u - v).abs() <= 1e-6 * (1.0 + v.abs()), "{u} vs {v}");
    }
}

#[test]
fn dcd_refuses_other_kernels_and_the_hinge_loss() {
    let (x, y) = blobs(50, 2, 2.0, 1);
    for (kernel, loss) in [
        (Kernel::rbf(0.5), Loss::SquaredHinge),
        (Kernel::Linear, Loss::Hinge),
    ] {
        let err = Svc::params()
            .loss(loss)
            .kernel(kernel)
            .algorithm(Algorithm::Dcd)
            .fit(&x, &y)
            .unwrap_err();
        assert!(err.to_string().contains("dcd"), "{err}");
    }
}

#[test]
fn sgd_learns_separable_blobs_and_its_objective_falls() {
    let (x, y) = blobs(400, 3, 4.0, 3);
    let y_pm: Vec<f64> = y
        .iter()
        .map(|&v| if v > 0.5 { 1.0 } else { -1.0 })
        .collect();
    for schedule in [
        Schedule::Inverse,
        Schedule::Exponential,
        Schedule::Step {
            every: 3,
            factor: 0.5,
        },
    ] {
        let params = SgdParams {
            c: 1.0,
            schedule,
            seed: 5,
            ..SgdParams::default()
        };
        let fit = fit_sgd((&x).into(), &y_pm, None, &params, &mut NoMonitor).unwrap();
        let correct = (0..y_pm.len())
            .filter(|&i| {
                let f: f64 = x
                    .view()
                    .row(i)
                    .iter()
                    .zip(&fit.w)
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
                    + fit.b;
                f * y_pm[i] > 0.0
            })
            .count();
        assert!(
            correct as f64 / y_pm.len() as f64 > 0.95,
            "{schedule:?}: {correct}"
        );
        assert!(
            fit.objective.last().unwrap() <= &fit.objective[0],
            "{schedule:?}"
        );
        assert_eq!(fit.epochs, fit.objective.len());
    }
    let bad = SgdParams {
        batch_size: 0,
        ..SgdParams::default()
    };
    assert!(fit_sgd((&x).into(), &y_pm, None, &bad, &mut NoMonitor).is_err());
}
