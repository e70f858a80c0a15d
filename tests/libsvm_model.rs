//! LIBSVM model files from Rust: the round trip through fwsvm's layout, LIBSVM's label order
//! for votes and probabilities, and the errors for files that are not valid models.

use fwsvm::model_file::{LibsvmModel, SvmType};
use fwsvm::{DenseMatrix, FwsvmError, Kernel, Svc, SvcModel};

fn read_text(text: &str) -> fwsvm::Result<LibsvmModel> {
    LibsvmModel::from_reader(text.as_bytes(), "m.model")
}

/// Three classes on a line, fitted one-vs-one.
fn three_classes() -> (DenseMatrix, Vec<f64>) {
    let rows: Vec<[f64; 2]> = (0..60)
        .map(|i| {
            let c = (i % 3) as f64;
            [
                c + 0.1 * ((i * 7 % 11) as f64 / 11.0),
                0.3 * ((i * 5 % 13) as f64 / 13.0),
            ]
        })
        .collect();
    let y: Vec<f64> = (0..60).map(|i| [5.0, -1.0, 2.0][i % 3]).collect();
    (DenseMatrix::from_rows(&rows).unwrap(), y)
}

#[test]
fn a_fitted_model_survives_the_libsvm_file_both_ways() {
    let (x, y) = three_classes();
    let model = Svc::params()
        .c(2.0)
        .kernel(Kernel::rbf(0.7))
        .fit(&x, &y)
        .unwrap();
    let file = model.to_libsvm().unwrap();
    assert_eq!(file.svm_type, SvmType::CSvc);
    assert_eq!(file.labels, vec![-1.0, 2.0, 5.0]);
    let mut text = Vec::new();
    file.to_writer(&mut text).unwrap();
    let back =
        SvcModel::from_libsvm(&read_text(std::str::from_utf8(&text).unwrap()).unwrap()).unwrap();
    assert_eq!(back.classes(), model.classes());
    let (ours, theirs) = (
        model.decision_function(&x).unwrap(),
        back.decision_function(&x).unwrap(),
    );
    for (a, b) in ours.iter().zip(&theirs) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()), "{a} {b}");
    }
    assert_eq!(back.predict(&x).unwrap(), model.predict(&x).unwrap());
    // Two classes: the file lists the positive class first and its value is ours.
    let y2: Vec<f64> = y
        .iter()
        .map(|&v| if v == 5.0 { 1.0 } else { 0.0 })
        .collect();
    let binary = Svc::params().kernel(Kernel::rbf(0.7)).fit(&x, &y2).unwrap();
    let file = binary.to_libsvm().unwrap();
    assert_eq!(file.labels, vec![1.0, 0.0]);
    let back = SvcModel::from_libsvm(&file).unwrap();
    assert_eq!(back.label_order(), &[1, 0]);
    let (ours, theirs) = (
        binary.decision_function(&x).unwrap(),
        back.decision_function(&x).unwrap(),
    );
    for (a, b) in ours.iter().zip(&theirs) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()), "{a} {b}");
    }
    // Written again, the file is the same.
    assert_eq!(back.to_libsvm().unwrap(), file);
}

/// Three labels listed 3 1 2, one support vector each with zero coefficients: the pairs'
/// values are −ρ. (3, 1) → 3, (3, 2) → 2, (1, 2) → 1: one vote each, and LIBSVM picks the
/// first label of the file, 3 (sorted order would pick 1).
const TIED: &str = "svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho -1 1 -1\n\
label 3 1 2\nprobA -1 -1 -1\nprobB 0 0 0\nnr_sv 1 1 1\nSV\n0 0 1:1 \n0 0 1:2 \n0 0 1:3 \n";

#[test]
fn vote_ties_go_to_the_first_label_of_the_file_as_in_libsvm() {
    let model = SvcModel::from_libsvm(&read_text(TIED).unwrap()).unwrap();
    assert_eq!(model.classes(), &[1.0, 2.0, 3.0]);
    assert_eq!(model.label_order(), &[2, 0, 1]);
    let x = DenseMatrix::from_rows(&[[0.5]]).unwrap();
    assert_eq!(model.predict(&x).unwrap(), vec![3.0]);
    // Probabilities: a symmetric cycle gives 1/3 each, in any order.
    let p = model.predict_proba(&x).unwrap();
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{p:?}");
    // And the order is kept when written back.
    let mut text = Vec::new();
    model.to_libsvm().unwrap().to_writer(&mut text).unwrap();
    assert!(String::from_utf8(text).unwrap().contains("label 3 1 2\n"));
}

fn error_of(text: &str) -> String {
    match read_text(text) {
        Err(e @ FwsvmError::LibsvmModel { .. }) => e.to_string(),
        other => panic!("expected a LIBSVM model error, got {other:?} for\n{text}"),
    }
}

#[test]
fn invalid_files_are_refused_with_the_line_and_the_problem() {
    let good = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\n\
label 1 -1\nnr_sv 1 1\nSV\n0.5 1:1 2:0.5\n-0.5 1:-1\n";
    read_text(good).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "0.5 1:1 2:0.5",
            "nan 1:1 2:0.5",
            "line 10: coefficient is NaN",
        ),
        ("0.5 1:1 2:0.5", "inf 1:1", "line 10: coefficient is inf"),
        ("rho 0.1", "rho nan", "line 6: 'rho' value is NaN"),
        ("rho 0.1", "rho -inf", "line 6: 'rho' value is -inf"),
        ("label 1 -1", "label nan -1", "line 7: 'label' value is NaN"),
        ("label 1 -1", "label 1 1", "line 7: label 1 is listed twice"),
        (
            "0.5 1:1 2:0.5",
            "0.5 1:nan",
            "line 10: feature 1's value is NaN",
        ),
        (
            "0.5 1:1 2:0.5",
            "0.5 2:1 1:0.5",
            "line 10: feature index 1 after 2",
        ),
        (
            "0.5 1:1 2:0.5",
            "0.5 1:1 1:0.5",
            "line 10: feature index 1 after 1",
        ),
        (
            "0.5 1:1 2:0.5",
            "0.5 9223372036854775808:1",
            "line 10: feature index 9223372036854775808 is out of range",
        ),
        (
            "0.5 1:1 2:0.5",
            "0.5 0:1",
            "line 10: feature index 0 is out of range",
        ),
        (
            "0.5 1:1 2:0.5",
            "0.5 1:x",
            "line 10: malformed feature 1's value",
        ),
        ("0.5 1:1 2:0.5", "0.5 1", "line 10: malformed feature \"1\""),
        (
            "-0.5 1:-1\n",
            "",
            "'total_sv 2' but the file has 1 support vector lines",
        ),
        (
            "-0.5 1:-1\n",
            "-0.5 1:-1\n0.1 1:2\n",
            "line 12: more support vector lines than 'total_sv 2'",
        ),
        (
            "nr_sv 1 1",
            "nr_sv 2 1",
            "line 8: 'nr_sv' counts do not add up",
        ),
        (
            "nr_sv 1 1",
            "nr_sv 3 -1",
            "line 8: 'nr_sv' has a negative count",
        ),
        (
            "nr_class 2",
            "nr_class 100000000",
            "needs 4999999950000000 'rho' values",
        ),
        ("gamma 0.5\n", "", "missing 'gamma' line"),
        (
            "gamma 0.5",
            "gamma 0.5\ndegree 99999999999999999999",
            "line 4: 'degree 99999999999999999999' is out of range",
        ),
        (
            "gamma 0.5",
            "gamma 0.5\ngamma 1",
            "line 4: 'gamma' given twice",
        ),
        (
            "gamma 0.5",
            "gamma 0.5\nweird 1",
            "line 4: unknown header line \"weird\"",
        ),
        ("SV\n0.5 1:1 2:0.5\n-0.5 1:-1\n", "", "no 'SV' section"),
        (
            "SV\n",
            "",
            "line 9: a support vector line before the 'SV' line",
        ),
        (
            "svm_type c_svc",
            "svm_type c_svx",
            "line 1: svm_type \"c_svx\" is unknown",
        ),
        (
            "kernel_type rbf",
            "kernel_type precomputed",
            "line 2: kernel_type precomputed is not supported",
        ),
        ("gamma 0.5", "gamma -1", "line 3: invalid parameter `gamma`"),
        (
            "rho 0.1",
            "rho 0.1\nprobA 1",
            "'probA' and 'probB' come together",
        ),
        (
            "rho 0.1",
            "rho 0.1\nprobA 1 2",
            "line 7: 'probA' has 2 values, expected 1",
        ),
    ];
    for (from, to, expected) in cases {
        assert!(good.contains(from), "{from}");
        let text = good.replacen(from, to, 1);
        let message = error_of(&text);
        assert!(
            message.starts_with("m.model") && message.contains(expected),
            "{message:?} does not say {expected:?}"
        );
    }
    // Binary data and endless lines are refused without reading them whole.
    assert!(error_of("svm_type c_svc\n\0\0\0").contains("line 2: binary data"));
    let endless = std::io::repeat(b'7');
    let err = LibsvmModel::from_reader(endless, "/dev/seven")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 1: line longer than 64 MiB"), "{err}");
    // No message is empty.
    assert!(!error_of("").ends_with(": "));
}

/// Issue 33: `fwsvm predict` converts the file's content by value (support vectors reordered in
/// place); the model is the one the borrowing conversion builds, for every label order of a
/// file with four classes of different sizes.
#[test]
fn the_owned_conversion_equals_the_borrowing_one() {
    let labels = [[4, 1, 3, 2], [1, 2, 3, 4], [2, 4, 1, 3], [3, 1, 2, 4]];
    for order in labels {
        let n_support = [2, 1, 3, 2];
        let mut text = format!(
            "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 4\ntotal_sv 8\nrho 0.1 0.2 0.3 0.4 0.5 0.6\nlabel {} {} {} {}\nnr_sv 2 1 3 2\nSV\n",
            order[0], order[1], order[2], order[3]
        );
        let mut s = 0;
        for (class, &n) in n_support.iter().enumerate() {
            for _ in 0..n {
                s += 1;
                let coef = [0.25 * s as f64, -0.5 * class as f64, 0.125];
                text.push_str(&format!(
                    "{} {} {} {}:{} {}:{}\n",
                    coef[0],
                    coef[1],
                    coef[2],
                    1 + s % 3,
                    s,
                    4 + class,
                    -(s as f64)
                ));
            }
        }
        let file = read_text(&text).unwrap();
        let borrowed = SvcModel::from_libsvm(&file).unwrap();
        let owned = SvcModel::from_libsvm_owned(file).unwrap();
        assert_eq!(borrowed, owned, "labels {order:?}");
    }
}
