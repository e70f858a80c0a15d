//! `fwsvm train`: LIBSVM's `svm-train`.

use crate::Samples;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::args::{Opt, Spec, Takes, split_weights};
use super::files::{refuse_same_file, write_output};
use super::{CliError, Context};
use crate::cross_validation::{shuffled_folds, stratified_folds};
use crate::data::libsvm::{ReadOptions, Targets, ZeroBased, read_libsvm};
use crate::data::{CsrMatrix, Features};
use crate::format::g6;
use crate::kernel::Kernel;
use crate::model::SvcModel;
use crate::model_file::LibsvmModel;
use crate::params::{Loss, Svc, SvcValidParams};
use crate::progress::{CancelMonitor, GapMeasure, ProgressDisplay};
use crate::solver::{Algorithm, SolverStats, Stopping};
use crate::{DualValidParams, EpsilonSvr, NuOneClass, NuSvr};

const OPTIONS: &[Opt] = &[
    Opt {
        flag: "-s",
        takes: Takes::IntChoice(&[0, 1, 2, 3, 4]),
        metavar: "svm_type",
        help: "0 C-SVC (default), 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR",
    },
    Opt {
        flag: "-t",
        takes: Takes::IntChoice(&[0, 1, 2, 3, 4]),
        metavar: "kernel_type",
        help: "0 linear, 1 polynomial, 2 rbf (default), 3 sigmoid",
    },
    Opt {
        flag: "-d",
        takes: Takes::Int,
        metavar: "DEGREE",
        help: "degree of the polynomial kernel (default 3)",
    },
    Opt {
        flag: "-g",
        takes: Takes::Float,
        metavar: "GAMMA",
        help: "gamma of the kernel (default 1/num_features)",
    },
    Opt {
        flag: "-r",
        takes: Takes::Float,
        metavar: "COEF0",
        help: "coef0 of the kernel (default 0)",
    },
    Opt {
        flag: "-c",
        takes: Takes::Float,
        metavar: "COST",
        help: "the parameter C (default 1)",
    },
    Opt {
        flag: "-n",
        takes: Takes::Float,
        metavar: "NU",
        help: "nu of nu-SVC, one-class SVM and nu-SVR (default 0.5)",
    },
    Opt {
        flag: "-p",
        takes: Takes::Float,
        metavar: "EPSILON",
        help: "epsilon of the epsilon-SVR's loss (default 0.1)",
    },
    Opt {
        flag: "-m",
        takes: Takes::Float,
        metavar: "CACHESIZE",
        help: "cache memory size in MB (default 100)",
    },
    Opt {
        flag: "-e",
        takes: Takes::Float,
        metavar: "TOL",
        help: "tolerance of the termination criterion (default 0.001; 0.01 for --loss squared_hinge)",
    },
    Opt {
        flag: "-h",
        takes: Takes::IntChoice(&[0, 1]),
        metavar: "shrinking",
        help: "accepted for compatibility: fwsvm decides when to shrink",
    },
    Opt {
        flag: "-b",
        takes: Takes::IntChoice(&[0, 1]),
        metavar: "probability_estimates",
        help: "1: train a model for probability estimates (C-SVC only)",
    },
    Opt {
        flag: "-v",
        takes: Takes::Int,
        metavar: "FOLDS",
        help: "n-fold cross validation mode (no model is written)",
    },
    Opt {
        flag: "-q",
        takes: Takes::Nothing,
        metavar: "",
        help: "quiet mode (no outputs)",
    },
    Opt {
        flag: "-a",
        takes: Takes::Choice(&["swap", "swap2o", "mfw", "fw", "bc", "ky", "dcd"]),
        metavar: "{swap,swap2o,mfw,fw,bc,ky,dcd}",
        help: "fwsvm solver (default swap; dcd: -t 0 with --loss squared_hinge)",
    },
    Opt {
        flag: "-j",
        takes: Takes::Int,
        metavar: "THREADS",
        help: "threads (default: all cores)",
    },
    Opt {
        flag: "--loss",
        takes: Takes::Choice(&["hinge", "squared_hinge"]),
        metavar: "{hinge,squared_hinge}",
        help: "C-SVC loss (default hinge)",
    },
];

pub(crate) const SPEC: Spec = Spec {
    options: OPTIONS,
    positionals: &["training_set_file", "model_file"],
    required: 1,
    description: "Train an SVM on a LIBSVM-format file and write a LIBSVM model file (options as LIBSVM's svm-train).",
    epilog: "-wi weight: set the parameter C of class i to weight*C (e.g. -w1 2 -w-1 0.5). -s 0...4 are LIBSVM's \
five models (fwsvm.SVC, NuSVC, OneClassSVM, SVR, NuSVR); --loss squared_hinge makes -s 0 the L2-SVM.",
};

const SVM_TYPES: [&str; 5] = ["C-SVC", "nu-SVC", "one-class SVM", "epsilon-SVR", "nu-SVR"];

/// A builder with the settings every model shares: kernel, solver, threads and `-e`.
macro_rules! with_common {
    ($options:expr, $params:expr, $kernel:expr) => {{
        // Setter by setter: `.solver(...)` would also fix the tolerance, which must stay the
        // loss's default unless `-e` gives it.
        let params = $params
            .kernel($kernel)
            .algorithm($options.algorithm.parse::<Algorithm>()?)
            .stopping(Stopping::RelativeGap)
            .cache_size_mb($options.cache_size)
            .n_threads($options.threads);
        match $options.tol {
            Some(tol) => params.tol(tol),
            None => params,
        }
    }};
}

/// The training options, checked (what `fwsvm grid` shares with `train`).
#[derive(Clone)]
pub(crate) struct TrainOptions {
    pub svm_type: i64,
    pub kernel_type: i64,
    pub degree: i64,
    pub gamma: Option<f64>,
    pub coef0: f64,
    pub cost: f64,
    pub nu: f64,
    pub epsilon: f64,
    pub cache_size: f64,
    pub tol: Option<f64>,
    pub probability: bool,
    pub folds: Option<i64>,
    pub quiet: bool,
    pub algorithm: String,
    pub threads: Option<usize>,
    pub loss: String,
    pub weights: Vec<(f64, f64)>,
    pub training_file: String,
    pub model_file: Option<String>,
}

/// Parses and checks `svm-train`'s options; `None` for `--help`.
pub(crate) fn parse(argv: &[String]) -> Result<Option<TrainOptions>, CliError> {
    let (rest, weights) = split_weights(argv)?;
    let Some(p) = SPEC.parse(&rest)? else {
        return Ok(None);
    };
    let threads = match p.has("-j").then(|| p.int("-j", 0)) {
        None => None,
        Some(0) => {
            return Err(CliError::plain(
                "n_jobs == 0 is not a valid number of threads; use None, -1 or a positive number",
            ));
        }
        Some(j) if j < 0 => {
            Some((crate::parallel::available_cores() as i64 + 1 + j).max(1) as usize)
        }
        Some(j) => Some(j as usize),
    };
    let options = TrainOptions {
        svm_type: p.int("-s", 0),
        kernel_type: p.int("-t", 2),
        degree: p.int("-d", 3),
        gamma: p.float("-g"),
        coef0: p.float("-r").unwrap_or(0.0),
        cost: p.float("-c").unwrap_or(1.0),
        nu: p.float("-n").unwrap_or(0.5),
        epsilon: p.float("-p").unwrap_or(0.1),
        cache_size: p.float("-m").unwrap_or(100.0),
        tol: p.float("-e"),
        probability: p.int("-b", 0) == 1,
        folds: p.has("-v").then(|| p.int("-v", 0)),
        quiet: p.has("-q"),
        algorithm: p.text("-a").unwrap_or("swap").to_owned(),
        threads,
        loss: p.text("--loss").unwrap_or("hinge").to_owned(),
        weights,
        training_file: p.positionals[0].clone(),
        model_file: p.positionals.get(1).cloned(),
    };
    options.check()?;
    Ok(Some(options))
}

impl TrainOptions {
    /// Refuses what fwsvm does not implement before reading any data.
    fn check(&self) -> Result<(), CliError> {
        let s = self.svm_type;
        if self.kernel_type == 4 {
            return Err(CliError::plain(
                "-t 4 (precomputed kernel files) is not supported by fwsvm train; use fwsvm.SVC(kernel='precomputed') from Python",
            ));
        }
        if self.probability && s == 2 {
            return Err(CliError::plain(
                "-b 1 applies to -s 0, 1 (Platt's probabilities) and -s 3, 4 (the Laplace scale), not to one-class",
            ));
        }
        if !self.weights.is_empty() && s != 0 {
            return Err(CliError::plain(format!(
                "-wi weights apply to C-SVC (-s 0) only (LIBSVM ignores them for -s {s})"
            )));
        }
        if self.loss != "hinge" && s != 0 {
            return Err(CliError::plain(
                "--loss applies to C-SVC (-s 0); -s 1…4 are LIBSVM's hinge-loss models",
            ));
        }
        if matches!(s, 1 | 2 | 4) && !(self.nu > 0.0 && self.nu <= 1.0) {
            return Err(CliError::plain(format!(
                "-n {}: nu must be in (0, 1]",
                g6(self.nu)
            )));
        }
        if s == 3 && !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(CliError::plain(format!(
                "-p {}: epsilon must be a number >= 0",
                g6(self.epsilon)
            )));
        }
        Ok(())
    }

    /// The kernel, γ defaulting to 1/num_features.
    pub fn kernel(&self, n_features: usize) -> Result<Kernel, CliError> {
        let gamma = self.gamma.unwrap_or(1.0 / n_features.max(1) as f64);
        let name = ["linear", "poly", "rbf", "sigmoid"][self.kernel_type as usize];
        Ok(Kernel::from_name(name, gamma, self.degree, self.coef0)?)
    }

    /// LIBSVM's default output name: the training file's name (in the working folder) plus
    /// `.extension`.
    pub fn output_beside_data(&self, extension: &str) -> String {
        let name = std::path::Path::new(&self.training_file)
            .file_name()
            .map_or(self.training_file.clone(), |n| {
                n.to_string_lossy().into_owned()
            });
        format!("{name}.{extension}")
    }

    /// The training file's features and labels, with the per-row weights of `-wi`.
    pub(crate) fn read_training(&self, context: &mut Context<'_>) -> Result<Training, CliError> {
        let (x, y) = read_data(&self.training_file)?;
        let weights = class_weights(self, &y, context);
        Ok(Training { x, y, weights })
    }

    pub fn kernel_name(&self) -> &'static str {
        ["linear", "poly", "rbf", "sigmoid", "precomputed"][self.kernel_type as usize]
    }

    /// The C-SVC's (or with `-s 1` the ν-SVC's) checked parameters.
    pub fn svc(&self, kernel: Kernel) -> Result<SvcValidParams, CliError> {
        let params = Svc::params()
            .c(self.cost)
            .loss(self.loss.parse::<Loss>()?)
            .nu((self.svm_type == 1).then_some(self.nu))
            .probability(self.probability);
        Ok(with_common!(self, params, kernel).check()?)
    }

    /// One-class (`-s 2`), ε-SVR (`-s 3`) or ν-SVR (`-s 4`) checked parameters.
    fn dual(&self, kernel: Kernel) -> Result<DualValidParams, CliError> {
        let params = match self.svm_type {
            2 => NuOneClass::params(),
            3 => EpsilonSvr::params(),
            _ => NuSvr::params(),
        }
        .c(self.cost)
        .nu(self.nu)
        .epsilon(self.epsilon)
        .probability(self.probability);
        Ok(with_common!(self, params, kernel).check()?)
    }
}

/// A training file as the commands use it.
pub(crate) struct Training {
    pub x: CsrMatrix,
    pub y: Vec<f64>,
    /// Per-row weights from `-wi`, if any.
    pub weights: Option<Vec<f64>>,
}

/// Reads a LIBSVM data file (1-based indices) as CSR features and labels.
pub(crate) fn read_data(path: &str) -> Result<(CsrMatrix, Vec<f64>), CliError> {
    let options = ReadOptions {
        zero_based: ZeroBased::No,
        ..ReadOptions::default()
    };
    let data = read_libsvm(path, &options)?;
    let y = match data.y {
        Targets::Single(y) => y,
        Targets::Multi { .. } => unreachable!("multilabel is off"),
    };
    Ok((data.x, y))
}

/// The fit's monitor: Ctrl-C, and progress on stderr unless quiet.
fn monitor(
    cancel: &Arc<AtomicBool>,
    quiet: bool,
    tol: f64,
    measure: GapMeasure,
) -> ProgressDisplay<CancelMonitor> {
    ProgressDisplay::new(
        CancelMonitor(Some(cancel.clone())),
        tol,
        measure,
        u8::from(!quiet),
    )
}

/// One trained model, in whichever form the type has.
enum Trained {
    Svc(SvcModel),
    Other(LibsvmModel, Option<SolverStats>),
}

/// Per-row sample weights from `-wi` (LIBSVM's class weights); warns about labels not in the
/// data, as LIBSVM does.
pub(crate) fn class_weights(
    options: &TrainOptions,
    y: &[f64],
    context: &mut Context<'_>,
) -> Option<Vec<f64>> {
    if options.weights.is_empty() {
        return None;
    }
    for &(label, _) in &options.weights {
        if !y.contains(&label) {
            context.warn(&format!(
                "WARNING: class label {} specified in weight is not found",
                g6(label)
            ));
        }
    }
    Some(
        y.iter()
            .map(|v| {
                options
                    .weights
                    .iter()
                    .rev()
                    .find(|(label, _)| label == v)
                    .map_or(1.0, |&(_, w)| w)
            })
            .collect(),
    )
}

fn fit(
    options: &TrainOptions,
    x: Features<'_>,
    y: &[f64],
    weights: Option<&[f64]>,
    cancel: &Arc<AtomicBool>,
) -> Result<Trained, CliError> {
    let kernel = options.kernel(x.n_cols())?;
    if options.svm_type <= 1 {
        let params = options.svc(kernel)?;
        let measure = match params.loss() {
            Loss::Hinge => GapMeasure::MaxViolation,
            Loss::SquaredHinge => GapMeasure::Relative,
        };
        let mut m = monitor(cancel, options.quiet, params.solver().tol, measure);
        let model = params.fit_weighted(Samples::new(x, y).weighted(weights), &mut m)?;
        return Ok(Trained::Svc(model));
    }
    let params = options.dual(kernel)?;
    let mut m = monitor(
        cancel,
        options.quiet,
        params.solver().tol,
        GapMeasure::MaxViolation,
    );
    let model = params.fit_weighted(Samples::new(x, y), &mut m)?;
    let stats = model.stats().cloned();
    Ok(Trained::Other(model.to_libsvm()?, stats))
}

impl Trained {
    fn predict(&self, x: Features<'_>) -> Result<Vec<f64>, CliError> {
        Ok(match self {
            Trained::Svc(model) => model.predict(x)?,
            Trained::Other(file, _) => super::predict::predict_file_model(file, x)?,
        })
    }
}

pub(crate) fn run(argv: &[String], context: &mut Context<'_>) -> Result<(), CliError> {
    let Some(options) = parse(argv)? else {
        let help = SPEC.help(context.prog);
        return context.say(false, help.trim_end());
    };
    let model_file = options
        .model_file
        .clone()
        .unwrap_or_else(|| options.output_beside_data("model"));
    if options.folds.is_none() {
        refuse_same_file(
            ("model file", &model_file),
            &[("training file", Some(&options.training_file))],
        )?;
    }
    let Training { x, y, weights } = options.read_training(context)?;
    if let Some(folds) = options.folds {
        let folds = check_folds(folds, x.n_rows(), context)?;
        let predicted = cross_validation_predictions(
            &options,
            &x,
            &y,
            weights.as_deref(),
            folds,
            &context.cancel,
        )?;
        for line in cross_validation_report(&options, &predicted, &y) {
            context.say(false, &line)?;
        }
        return Ok(());
    }
    let (m, d) = (x.n_rows(), x.n_cols());
    let classes = crate::estimators::sorted_classes(y.iter().copied());
    let kind = match options.svm_type {
        0 => format!("C-SVC ({} loss)", options.loss),
        s => SVM_TYPES[s as usize].into(),
    };
    let class_count = if options.svm_type <= 1 {
        format!(", {} classes", classes.len())
    } else {
        String::new()
    };
    context.say(
        options.quiet,
        &format!(
            "fwsvm: {kind}, {} kernel, {m} rows x {d} features{class_count}",
            options.kernel_name()
        ),
    )?;
    let start = Instant::now();
    let trained = fit(
        &options,
        Features::Sparse(x.view()),
        &y,
        weights.as_deref(),
        &context.cancel,
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let stats: Vec<SolverStats> = match &trained {
        Trained::Svc(model) => model.stats().to_vec(),
        Trained::Other(_, stats) => stats.iter().cloned().collect(),
    };
    let n_iter: u64 = stats.iter().map(|s| s.n_iter).sum();
    let reason = stats
        .iter()
        .find(|s| s.exit_reason != crate::ExitReason::Converged)
        .map_or("converged", |s| s.exit_reason.name());
    let gap = stats
        .iter()
        .map(|s| s.relative_gap)
        .fold(f64::NAN, f64::max);
    context.say(
        options.quiet,
        &format!(
            "optimization finished in {seconds:.3} s, #iter = {n_iter}, {reason} (relative gap {})",
            crate::format::g(gap, 3)
        ),
    )?;
    let file = match trained {
        Trained::Svc(model) => {
            let per_class: Vec<String> = model
                .classes()
                .iter()
                .zip(model.n_support_per_class())
                .map(|(c, n)| format!("{}:{n}", g6(*c)))
                .collect();
            context.say(
                options.quiet,
                &format!("nSV per class: {}", per_class.join(" ")),
            )?;
            model.to_libsvm()?
        }
        Trained::Other(file, _) => file,
    };
    context.say(
        options.quiet,
        &format!("Total nSV = {}", file.n_support_vectors()),
    )?;
    file.check()?;
    write_output(context, &model_file, |w| file.write_to(w))?;
    context.say(options.quiet, &format!("model written to {model_file}"))
}

/// Checks `-v n` (and warns, as LIBSVM's `svm_cross_validation` does, when there are more
/// folds than rows); the number of folds to use.
pub(crate) fn check_folds(
    folds: i64,
    n: usize,
    context: &mut Context<'_>,
) -> Result<usize, CliError> {
    if folds < 2 {
        return Err(CliError::plain(format!(
            "-v {folds}: n-fold cross validation needs n >= 2"
        )));
    }
    if folds as usize > n {
        context.warn(
            "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross validation)",
        );
    }
    Ok((folds as usize).min(n.max(1)))
}

/// The out-of-fold predictions of `-v n` (after [`check_folds`]): stratified folds for the
/// classifiers, shuffled ones for the others, drawn with seed 0.
pub(crate) fn cross_validation_predictions(
    options: &TrainOptions,
    x: &CsrMatrix,
    y: &[f64],
    weights: Option<&[f64]>,
    folds: usize,
    cancel: &Arc<AtomicBool>,
) -> Result<Vec<f64>, CliError> {
    let n = x.n_rows();
    let assignment = if options.svm_type <= 1 {
        stratified_folds(y, folds, 0)
    } else {
        shuffled_folds(n, folds, 0)
    };
    let mut predicted = vec![0.0; n];
    let view = x.view();
    for f in 0..folds {
        let (train, test): (Vec<usize>, Vec<usize>) = (0..n).partition(|&r| assignment[r] != f);
        if test.is_empty() || train.is_empty() {
            continue;
        }
        let sub_x = view.select_rows(&train);
        let sub_y: Vec<f64> = train.iter().map(|&r| y[r]).collect();
        let sub_w: Option<Vec<f64>> = weights.map(|w| train.iter().map(|&r| w[r]).collect());
        let trained = fit(
            options,
            Features::Sparse(sub_x.view()),
            &sub_y,
            sub_w.as_deref(),
            cancel,
        )?;
        let test_x = view.select_rows(&test);
        let values = trained.predict(Features::Sparse(test_x.view()))?;
        for (&r, v) in test.iter().zip(values) {
            predicted[r] = v;
        }
    }
    Ok(predicted)
}

/// The percentage of `predicted` labels equal to `y` (LIBSVM's cross-validation accuracy).
pub(crate) fn accuracy(predicted: &[f64], y: &[f64]) -> f64 {
    let correct = predicted.iter().zip(y).filter(|(p, t)| p == t).count();
    100.0 * correct as f64 / y.len().max(1) as f64
}

/// LIBSVM's `-v n` report: accuracy, or mean squared error and squared correlation.
fn cross_validation_report(options: &TrainOptions, predicted: &[f64], y: &[f64]) -> Vec<String> {
    if options.svm_type >= 3 {
        let mse = predicted
            .iter()
            .zip(y)
            .map(|(p, t)| (p - t) * (p - t))
            .sum::<f64>()
            / y.len() as f64;
        return vec![
            format!("Cross Validation Mean squared error = {}", g6(mse)),
            format!(
                "Cross Validation Squared correlation coefficient = {}",
                g6(squared_correlation(predicted, y))
            ),
        ];
    }
    vec![format!(
        "Cross Validation Accuracy = {}%",
        g6(accuracy(predicted, y))
    )]
}

/// LIBSVM's squared correlation coefficient of predictions `p` and targets `t`.
pub(crate) fn squared_correlation(p: &[f64], t: &[f64]) -> f64 {
    let n = p.len() as f64;
    let (mut sp, mut st, mut spp, mut stt, mut spt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (&a, &b) in p.iter().zip(t) {
        sp += a;
        st += b;
        spp += a * a;
        stt += b * b;
        spt += a * b;
    }
    let den = (n * spp - sp * sp) * (n * stt - st * st);
    if den == 0.0 {
        f64::NAN
    } else {
        (n * spt - sp * st).powi(2) / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(argv: &[&str]) -> TrainOptions {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        parse(&argv).unwrap().unwrap()
    }

    /// Without `-e` each model keeps its loss's default tolerance (the squared hinge's is 1e-2).
    #[test]
    fn the_tolerance_is_the_losss_default_unless_given() {
        let kernel = Kernel::rbf(1.0);
        let tol = |argv: &[&str]| options(argv).svc(kernel).unwrap().solver().tol;
        assert_eq!(tol(&["d.svm"]), 1e-3);
        assert_eq!(tol(&["--loss", "squared_hinge", "d.svm"]), 1e-2);
        assert_eq!(tol(&["--loss", "squared_hinge", "-e", "0.5", "d.svm"]), 0.5);
        let o = options(&[
            "-s", "2", "-n", "0.3", "-a", "mfw", "-m", "50", "-j", "1", "d.svm",
        ]);
        assert_eq!(o.threads, Some(1));
        assert_eq!(o.dual(kernel).unwrap().kind(), crate::DualKind::OneClass);
        let p = options(&["-a", "mfw", "-m", "50", "--loss", "squared_hinge", "d.svm"])
            .svc(kernel)
            .unwrap();
        assert_eq!(p.solver().algorithm, Algorithm::Mfw);
        assert_eq!(p.solver().cache_size_mb, 50.0);
    }
}
