//! The linear models from Rust: the `dcd` path of the squared-hinge SVC against the kernel
//! solver, mini-batch SGD (one problem and one-vs-rest), and the feature maps that feed them.

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

#[test]
fn sgd_one_vs_rest_and_its_objective() {
    use fwsvm::estimators::sgd::{fit_sgd_one_vs_rest, sgd_objective, sgd_problems};
    let (x, y) = blobs(300, 3, 2.0, 5);
    // Class indices: 0 and 1 for two classes, and a third class cut from the positive one.
    let two: Vec<f64> = y.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect();
    let three: Vec<f64> = two
        .iter()
        .enumerate()
        .map(|(i, &c)| if c == 1.0 && i % 4 == 0 { 2.0 } else { c })
        .collect();
    let params = SgdParams {
        tol: 1e-4,
        ..SgdParams::default()
    };
    for (labels, k) in [(&two, 2), (&three, 3)] {
        let mut monitors: Vec<_> = (0..sgd_problems(k)).map(|_| NoMonitor).collect();
        let fits = fit_sgd_one_vs_rest(
            fwsvm::Features::from(&x),
            labels,
            k,
            None,
            &params,
            &mut monitors,
        )
        .unwrap();
        assert_eq!(fits.len(), if k == 2 { 1 } else { 3 });
        let coef: Vec<f64> = fits.iter().flat_map(|f| f.w.clone()).collect();
        let intercept: Vec<f64> = fits.iter().map(|f| f.b).collect();
        let values = sgd_objective(
            fwsvm::Features::from(&x),
            labels,
            None,
            Loss::Hinge,
            1.0,
            &coef,
            &intercept,
        )
        .unwrap();
        for (value, fit) in values.iter().zip(&fits) {
            let last = *fit.objective.last().unwrap();
            assert!(
                (value - last).abs() <= 1e-10 * last.abs(),
                "{value} vs {last}"
            );
        }
    }
    let mut one = vec![NoMonitor];
    let err = fit_sgd_one_vs_rest(
        fwsvm::Features::from(&x),
        &vec![0.0; 300],
        1,
        None,
        &params,
        &mut one,
    )
    .unwrap_err();
    assert!(err.to_string().contains("greater than one"), "{err}");
}

#[test]
fn feature_maps_from_rust() {
    use fwsvm::model::feature_maps::{
        FourierKernel, NystroemMap, RandomFourierMap, coreset_landmarks,
    };
    use fwsvm::random::legacy::LegacyRandomState;
    let (x, y) = blobs(120, 3, 1.0, 9);
    let kernel = Kernel::rbf(0.4);
    let mut rng = LegacyRandomState::new(0);
    // Every row a landmark: the map reproduces the kernel.
    let map = NystroemMap::fit_uniform(kernel, fwsvm::Features::from(&x), 500, &mut rng).unwrap();
    assert_eq!(map.component_indices(), (0..120).collect::<Vec<_>>());
    let z = map.transform(fwsvm::Features::from(&x)).unwrap();
    let k =
        fwsvm::kernel::cross_kernel(kernel, fwsvm::Features::from(&x), fwsvm::Features::from(&x))
            .unwrap();
    for (i, j) in [(0, 0), (3, 7), (50, 119)] {
        let zz: f64 = (0..120).map(|c| z[i * 120 + c] * z[j * 120 + c]).sum();
        assert!((zz - k[i * 120 + j]).abs() < 1e-8, "{i} {j}");
    }
    // Coreset landmarks: distinct rows, ascending.
    let svc = Svc::params().kernel(kernel);
    let rows = coreset_landmarks(svc, fwsvm::Features::from(&x), &y, 20, 60, &mut rng)
        .unwrap()
        .unwrap();
    assert_eq!(rows.len(), 20);
    assert!(rows.windows(2).all(|w| w[0] < w[1]) && rows[19] < 120);
    let map = RandomFourierMap::draw(FourierKernel::Rbf, 0.4, 3, 50, &mut rng).unwrap();
    let z = map.transform(fwsvm::Features::from(&x)).unwrap();
    assert_eq!(z.len(), 120 * 50);
    assert!(z.iter().all(|v| v.abs() <= (2.0f64 / 50.0).sqrt()));
}
