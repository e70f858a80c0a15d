//! Class probabilities fitted in Rust (LIBSVM's `-b 1`) and precomputed-kernel prediction.

use fwsvm::{DenseMatrix, FwsvmError, Kernel, Svc};

fn three_classes(n: usize, shift: f64) -> (DenseMatrix, Vec<f64>) {
    let rows: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let c = (i % 3) as f64;
            let u = ((i * 7919 + 13) % 101) as f64 / 101.0 - 0.5;
            let v = ((i * 104_729 + 7) % 97) as f64 / 97.0 - 0.5;
            [c + 1.2 * u + shift, 0.8 * v]
        })
        .collect();
    let y = (0..n).map(|i| [7.0, 3.0, 5.0][i % 3]).collect();
    (DenseMatrix::from_rows(&rows).unwrap(), y)
}

#[test]
fn probabilities_sum_to_one_and_agree_with_the_votes() {
    let (x, y) = three_classes(300, 0.0);
    let params = Svc::params().c(2.0).kernel(Kernel::rbf(1.0));
    let plain = params.fit(&x, &y).unwrap();
    let err = plain.predict_proba(&x).unwrap_err();
    assert!(matches!(err, FwsvmError::InvalidInput(_)), "{err}");
    let model = params.clone().probability(true).fit(&x, &y).unwrap();
    // The probabilities do not change the decision function.
    assert_eq!(
        model.decision_function(&x).unwrap(),
        plain.decision_function(&x).unwrap()
    );
    let (a, b) = model.probability_parameters();
    assert_eq!((a.len(), b.len()), (3, 3));
    assert!(a.iter().all(|&v| v < 0.0), "{a:?}");
    let (xt, yt) = three_classes(150, 0.01);
    let p = model.predict_proba(&xt).unwrap();
    let votes = model.predict(&xt).unwrap();
    let mut agree = 0;
    for (r, row) in p.chunks(3).enumerate() {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{row:?}");
        let best = (0..3).fold(0, |b, c| if row[c] > row[b] { c } else { b });
        agree += usize::from(model.classes()[best] == votes[r]);
    }
    assert!(agree >= 140, "{agree} of 150");
    let accuracy = votes.iter().zip(&yt).filter(|(a, b)| a == b).count();
    assert!(accuracy >= 120, "{accuracy}");
    // Reproducible: the folds come from the seed.
    let again = params.probability(true).fit(&x, &y).unwrap();
    assert_eq!(
        again.probability_parameters(),
        model.probability_parameters()
    );
}

/// k(x, z) = exp(−γ‖x − z‖²) between the rows of `a` and `b`.
fn gram(a: &DenseMatrix, b: &DenseMatrix, gamma: f64) -> DenseMatrix {
    let mut out = Vec::new();
    for i in 0..a.n_rows() {
        for j in 0..b.n_rows() {
            let (p, q) = (a.view().row(i), b.view().row(j));
            let d: f64 = p.iter().zip(q).map(|(u, v)| (u - v) * (u - v)).sum();
            out.push((-gamma * d).exp());
        }
    }
    DenseMatrix::new(out, a.n_rows(), b.n_rows()).unwrap()
}

#[test]
fn a_precomputed_model_predicts_from_kernel_values_against_the_training_rows() {
    let (x, y) = three_classes(90, 0.0);
    let (xt, _) = three_classes(40, 0.02);
    // Both solved tightly, so that the two solutions agree beyond the tolerance.
    let rbf = Svc::params()
        .c(2.0)
        .tol(1e-9)
        .kernel(Kernel::rbf(0.8))
        .fit(&x, &y)
        .unwrap();
    let pre = Svc::params()
        .c(2.0)
        .tol(1e-9)
        .kernel(Kernel::Precomputed)
        .probability(true)
        .fit(&gram(&x, &x, 0.8), &y)
        .unwrap();
    let k_test = gram(&xt, &x, 0.8);
    let (a, b) = (
        rbf.decision_function(&xt).unwrap(),
        pre.decision_function(&k_test).unwrap(),
    );
    for (u, v) in a.iter().zip(&b) {
        assert!((u - v).abs() < 1e-6, "{u} {v}");
    }
    assert_eq!(pre.predict(&k_test).unwrap(), rbf.predict(&xt).unwrap());
    let p = pre.predict_proba(&k_test).unwrap();
    assert!(
        p.chunks(3)
            .all(|r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-9)
    );
    // Kernel values against too few training rows are refused, not misread.
    let short = gram(&xt, &DenseMatrix::from_rows(&[[0.0, 0.0]]).unwrap(), 0.8);
    assert!(pre.decision_function(&short).is_err());
}
