//! fwsvm in linfa (feature `linfa`): datasets, predictions, cross-validation and metrics.
//!
//! The builders' and models' own `fit` and `predict` take fwsvm's matrices, so linfa's traits
//! are called by name (`Fit::fit`, `Predict::predict`).
#![cfg(feature = "linfa")]

use fwsvm::{DenseView, EpsilonSvr, FwsvmError, Kernel, NuOneClass, Svc};
use linfa::prelude::*;
use ndarray016::{Array1, Array2, Axis};

/// Two interleaved half-moons of `n` points each, labelled 0 and 1.
fn moons(n: usize) -> (Array2<f64>, Array1<usize>) {
    let mut x = Array2::zeros((2 * n, 2));
    let mut y = Array1::zeros(2 * n);
    for i in 0..n {
        let t = std::f64::consts::PI * i as f64 / n as f64;
        let wobble = 0.05 * ((i * 7919) % 13) as f64 / 13.0;
        x[[i, 0]] = t.cos() + wobble;
        x[[i, 1]] = t.sin() - wobble;
        x[[n + i, 0]] = 1.0 - t.cos() - wobble;
        x[[n + i, 1]] = 0.5 - t.sin() + wobble;
        y[n + i] = 1;
    }
    (x, y)
}

#[test]
fn svc_fits_a_linfa_dataset_and_predicts_its_labels() {
    let (x, y) = moons(60);
    let dataset = Dataset::new(x.clone(), y.clone());
    let params = Svc::params().c(10.0).kernel(Kernel::rbf(2.0));
    let model = Fit::fit(&params, &dataset).unwrap();
    assert_eq!(model.classes(), [0, 1]);
    let predicted: Array1<usize> = Predict::predict(&model, &x);
    let accuracy = predicted.confusion_matrix(&dataset).unwrap().accuracy();
    assert!(accuracy > 0.97, "{accuracy}");
    // The model of fwsvm's own labels API on the same rows.
    let rows = DenseView::new(x.as_slice().unwrap(), x.nrows(), 2).unwrap();
    let direct = params.fit_labels(rows, y.iter()).unwrap();
    assert_eq!(predicted.to_vec(), direct.predict(rows).unwrap());
}

#[test]
fn records_in_fortran_layout_are_copied_not_refused() {
    let (x, y) = moons(30);
    let fortran = x.t().as_standard_layout().t().to_owned(); // a column-major copy of x
    assert!(!fortran.is_standard_layout());
    let params = Svc::params().c(10.0).kernel(Kernel::rbf(2.0));
    let a = Fit::fit(&params, &Dataset::new(x.clone(), y.clone())).unwrap();
    let b = Fit::fit(&params, &Dataset::new(fortran.clone(), y)).unwrap();
    let pa: Array1<usize> = Predict::predict(&a, &x);
    let pb: Array1<usize> = Predict::predict(&b, &fortran);
    assert_eq!(pa, pb);
}

#[test]
fn cross_validation_runs_through_linfa() {
    let (x, y) = moons(50);
    // linfa's folds are contiguous chunks: shuffle the rows so that every fold has both classes.
    let order: Vec<usize> = (0..100).map(|i| (i * 37) % 100).collect();
    let mut dataset = Dataset::new(x.select(Axis(0), &order), y.select(Axis(0), &order));
    let candidates = [
        Svc::params().c(0.01).kernel(Kernel::rbf(2.0)),
        Svc::params().c(10.0).kernel(Kernel::rbf(2.0)),
    ];
    let scores = dataset
        .cross_validate_single(5, &candidates, |predicted, truth| {
            Ok(predicted.confusion_matrix(truth)?.accuracy())
        })
        .unwrap();
    assert_eq!(scores.len(), 2);
    assert!(scores[1] > 0.95 && scores[1] >= scores[0], "{scores}");
}

#[test]
fn epsilon_svr_and_one_class_fit_linfa_datasets() {
    let x = Array2::from_shape_fn((40, 1), |(i, _)| i as f64 / 10.0);
    let y = x.column(0).mapv(|v| 2.0 * v + 1.0);
    let params = EpsilonSvr::params()
        .c(100.0)
        .epsilon(0.01)
        .kernel(Kernel::Linear);
    let svr = Fit::fit(&params, &Dataset::new(x.clone(), y.clone())).unwrap();
    let fitted: Array1<f64> = Predict::predict(&svr, &x);
    assert!(
        fitted.iter().zip(&y).all(|(f, t)| (f - t).abs() < 0.05),
        "{fitted}"
    );
    // One-class ignores the targets: +1 inside, -1 outside.
    let params = NuOneClass::params().nu(0.1).kernel(Kernel::rbf(1.0));
    let ring = Fit::fit(&params, &Dataset::new(x, y)).unwrap();
    let far: Array1<f64> = Predict::predict(&ring, &Array2::from_elem((1, 1), 50.0));
    assert_eq!(far[0], -1.0);
}

#[test]
fn bad_parameters_and_data_are_errors_not_panics() {
    let (x, y) = moons(10);
    let bad_c = Fit::fit(&Svc::params().c(-1.0), &Dataset::new(x.clone(), y.clone()));
    assert!(
        matches!(bad_c, Err(FwsvmError::InvalidParameter { name: "C", .. })),
        "{bad_c:?}"
    );
    let mut nan = x;
    nan[[3, 1]] = f64::NAN;
    let fitted = Fit::fit(&Svc::params(), &Dataset::new(nan, y));
    assert!(
        matches!(fitted, Err(FwsvmError::NonFinite { row: 3, .. })),
        "{fitted:?}"
    );
}

#[test]
#[should_panic(expected = "fwsvm prediction failed")]
fn predicting_rows_of_another_width_panics_with_the_models_message() {
    let (x, y) = moons(10);
    let model = Fit::fit(&Svc::params(), &Dataset::new(x, y)).unwrap();
    let _: Array1<usize> = Predict::predict(&model, &Array2::zeros((2, 5)));
}
