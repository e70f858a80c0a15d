//! `fwsvm predict`: LIBSVM's `svm-predict`.

use super::args::{Opt, Spec, Takes};
use super::files::{refuse_same_file, write_output};
use super::train::{read_data, squared_correlation};
use super::{CliError, Context};
use crate::data::{CsrMatrix, CsrView, FeatureMatrix, Features};
use crate::format::{g6, g17};
use crate::model::{SvcModel, decision_values};
use crate::model_file::{LibsvmModel, SvmType};

const OPTIONS: &[Opt] = &[
    Opt {
        flag: "-b",
        takes: Takes::IntChoice(&[0, 1]),
        metavar: "probability_estimates",
        help: "1: write probability estimates (models trained with -b 1)",
    },
    Opt {
        flag: "-q",
        takes: Takes::Nothing,
        metavar: "",
        help: "quiet mode (no outputs)",
    },
];

const SPEC: Spec = Spec {
    options: OPTIONS,
    positionals: &["test_file", "model_file", "output_file"],
    required: 3,
    description: "Predict a LIBSVM-format file with a LIBSVM model file (as LIBSVM's svm-predict); writes one prediction per line to output_file.",
    epilog: "",
};

/// `matrix` with `n_cols` columns (at least its own): features beyond a file's last index are
/// zero.
fn widen(matrix: CsrMatrix, n_cols: usize) -> Result<CsrMatrix, CliError> {
    if matrix.n_cols() >= n_cols {
        return Ok(matrix);
    }
    let (indptr, indices, data) = matrix.into_parts();
    Ok(CsrMatrix::new(indptr, indices, data, n_cols)?)
}

/// Predictions of a one-class or regression model straight from the file: f(x) = Σ coef k − ρ,
/// the value itself (regression) or +1 where f > 0, else −1 (one-class), as LIBSVM.
pub(crate) fn predict_file_model(
    file: &LibsvmModel,
    x: Features<'_>,
) -> Result<Vec<f64>, CliError> {
    // The file's vectors as wide as the queries, borrowed (no copy of the entries).
    let v = file.vectors.view();
    let vectors = CsrView::new(
        v.indptr(),
        v.indices(),
        v.data(),
        x.n_cols().max(v.n_cols()),
    )?;
    let values = decision_values(
        file.kernel,
        Features::Sparse(vectors),
        &file.sv_coef,
        -file.rho[0],
        x,
    )?;
    Ok(match file.svm_type {
        SvmType::OneClass => values
            .into_iter()
            .map(|f| if f > 0.0 { 1.0 } else { -1.0 })
            .collect(),
        _ => values,
    })
}

pub(crate) fn run(argv: &[String], context: &mut Context<'_>) -> Result<(), CliError> {
    let Some(p) = SPEC.parse(argv)? else {
        let help = SPEC.help(context.prog);
        return context.say(false, help.trim_end());
    };
    let (test_file, model_file, output_file) =
        (&p.positionals[0], &p.positionals[1], &p.positionals[2]);
    let (probability, quiet) = (p.int("-b", 0) == 1, p.has("-q"));
    refuse_same_file(
        ("output file", output_file),
        &[
            ("test file", Some(test_file)),
            ("model file", Some(model_file)),
        ],
    )?;
    let (x, y) = read_data(test_file)?;
    let file = LibsvmModel::read(model_file)?;
    // As LIBSVM: features beyond the model's support vectors still count (in ‖x‖² of the rbf
    // kernel), and features the test file lacks are zero.
    let d = x.n_cols().max(file.vectors.n_cols());
    let x = widen(x, d)?;
    let features = Features::Sparse(x.view());
    let predictions: Vec<f64>;
    let svm_type = file.svm_type;
    if svm_type.is_classifier() {
        // The file's content moves into the model (its support vectors are not copied).
        let mut model = SvcModel::from_libsvm_owned(file)?;
        if let FeatureMatrix::Sparse(v) = &mut model.vectors
            && v.n_cols() < d
        {
            let narrow = std::mem::replace(v, CsrMatrix::new(vec![0], Vec::new(), Vec::new(), 0)?);
            *v = widen(narrow, d)?;
        }
        if probability {
            if model.probability_parameters().0.is_empty() {
                return Err(CliError::plain(format!(
                    "{model_file}: the model does not support probability estimates (train it with -b 1)"
                )));
            }
            let k = model.n_classes();
            let proba = model.predict_proba(features)?;
            // Columns in the file's label order; the label is the most probable (LIBSVM's rule).
            let order = model.label_order().to_vec();
            let labels: Vec<f64> = order.iter().map(|&c| model.classes()[c]).collect();
            let mut chosen = Vec::with_capacity(y.len());
            write_output(context, output_file, |w| {
                let names: Vec<String> = labels.iter().map(|l| (*l as i64).to_string()).collect();
                writeln!(w, "labels {}", names.join(" "))?;
                for row in proba.chunks(k) {
                    let best =
                        (0..k).fold(0, |b, p| if row[order[p]] > row[order[b]] { p } else { b });
                    chosen.push(labels[best]);
                    write!(w, "{}", g6(labels[best]))?;
                    for &c in &order {
                        write!(w, " {}", g6(row[c]))?;
                    }
                    writeln!(w)?;
                }
                Ok(())
            })?;
            predictions = chosen;
        } else {
            predictions = model.predict(features)?;
            write_output(context, output_file, |w| {
                predictions
                    .iter()
                    .try_for_each(|v| writeln!(w, "{}", g17(*v)))
            })?;
        }
    } else {
        if probability && svm_type == SvmType::OneClass {
            return Err(CliError::plain(format!(
                "{model_file}: -b 1 is not supported for one-class models in fwsvm"
            )));
        }
        if probability {
            // LIBSVM's SVR probability model: the Laplace scale σ of the residuals (probA).
            let Some(sigma) = file.prob_a.first() else {
                return Err(CliError::plain(format!(
                    "{model_file}: the model does not support probability estimates (train it with -b 1)"
                )));
            };
            context.say(
                quiet,
                &format!(
                    "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={}",
                    g6(*sigma)
                ),
            )?;
        }
        predictions = predict_file_model(&file, features)?;
        write_output(context, output_file, |w| {
            predictions
                .iter()
                .try_for_each(|v| writeln!(w, "{}", g17(*v)))
        })?;
    }
    if matches!(svm_type, SvmType::EpsilonSvr | SvmType::NuSvr) {
        let n = y.len() as f64;
        let mse = predictions
            .iter()
            .zip(&y)
            .map(|(p, t)| (p - t) * (p - t))
            .sum::<f64>()
            / n;
        context.say(
            quiet,
            &format!("Mean squared error = {} (regression)", g6(mse)),
        )?;
        context.say(
            quiet,
            &format!(
                "Squared correlation coefficient = {} (regression)",
                g6(squared_correlation(&predictions, &y))
            ),
        )
    } else {
        let correct = predictions.iter().zip(&y).filter(|(p, t)| p == t).count();
        let total = y.len();
        let accuracy = if total > 0 {
            100.0 * correct as f64 / total as f64
        } else {
            f64::NAN
        };
        context.say(
            quiet,
            &format!(
                "Accuracy = {}% ({correct}/{total}) (classification)",
                g6(accuracy)
            ),
        )
    }
}
