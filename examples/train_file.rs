//! Train an SVM from a LIBSVM file, evaluate it, and optionally save it for Python.
//!
//! ```text
//! cargo run --release --example train_file -- TRAIN [TEST] [options]
//! ```
//!
//! Run with `--help` for the options. Two classes give a binary model, more a one-vs-one
//! model; `--svr` fits a regression and `--one-class` a one-class model instead. `--save FILE`
//! writes the model in fwsvm's versioned format, which Python's `fwsvm.load_model` reads.

use std::process::ExitCode;
use std::time::Instant;

use fwsvm::data::libsvm::{ReadOptions, Source, Targets, read_libsvm_sources};
use fwsvm::{Kernel, OneClass, Svc, Svr};

const USAGE: &str = "\
usage: train_file TRAIN [TEST] [options]

Trains an SVM (RBF kernel) on the LIBSVM/svmlight file TRAIN and reports its accuracy (or,
for --svr, its mean squared error) on TEST, or on TRAIN without one.

options:
  -c C            penalty C (default 1)
  -g GAMMA        RBF gamma (default 1 / number of features)
  -e TOL          solver tolerance (default: the model's)
  --loss LOSS     SVC loss: hinge (default) or squared_hinge
  --algorithm A   solver: swap (default), swap2o, mfw, fw, bc, ky
  --working-set Q hinge loss: 0 for per-step pairs, Q for blocked working sets of Q samples
                  (default: chosen from the data)
  --svr           fit a regression model (SVR) instead of a classifier
  --one-class     fit a one-class model (labels are ignored)
  --nu NU         nu of --svr (default 0.2 * n_samples) or --one-class (default 0.1)
  --save FILE     write the model to FILE (fwsvm's model format; Python: fwsvm.load_model)
  --predictions FILE  write one prediction per line of TEST (or TRAIN) to FILE
  -h, --help      show this help

environment: FWSVM_NUM_THREADS (threads), FWSVM_VERBOSE=1 (progress on stderr)";

/// What the command line asked for.
#[derive(Default)]
struct Options {
    files: Vec<String>,
    c: Option<f64>,
    gamma: Option<f64>,
    tol: Option<f64>,
    loss: Option<String>,
    algorithm: Option<String>,
    working_set: Option<usize>,
    svr: bool,
    one_class: bool,
    nu: Option<f64>,
    save: Option<String>,
    predictions: Option<String>,
}

/// Parses the arguments; `Ok(None)` when help was asked for.
fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        let number = |name: &str, v: String| {
            v.parse::<f64>()
                .map_err(|_| format!("{name} needs a number, got {v:?}"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "-c" => o.c = Some(number("-c", value("-c")?)?),
            "-g" => o.gamma = Some(number("-g", value("-g")?)?),
            "-e" => o.tol = Some(number("-e", value("-e")?)?),
            "--nu" => o.nu = Some(number("--nu", value("--nu")?)?),
            "--loss" => o.loss = Some(value("--loss")?),
            "--algorithm" => o.algorithm = Some(value("--algorithm")?),
            "--working-set" => {
                let v = value("--working-set")?;
                o.working_set = Some(
                    v.parse()
                        .map_err(|_| format!("--working-set needs a whole number, got {v:?}"))?,
                );
            }
            "--save" => o.save = Some(value("--save")?),
            "--predictions" => o.predictions = Some(value("--predictions")?),
            "--svr" => o.svr = true,
            "--one-class" => o.one_class = true,
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("unknown option {flag}"));
            }
            file => o.files.push(file.to_string()),
        }
    }
    match o.files.len() {
        0 => Err("no training file given".into()),
        1 | 2 => Ok(Some(o)),
        _ => Err(format!(
            "at most two files (TRAIN, TEST), got {}",
            o.files.len()
        )),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("train_file: {why}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("train_file: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A model's builder with the settings all three share: kernel, progress, `-e` and `--algorithm`.
macro_rules! with_common {
    ($params:expr, $o:expr, $kernel:expr, $verbose:expr) => {{
        let params = $params.kernel($kernel).verbose($verbose);
        let params = match $o.tol {
            Some(tol) => params.tol(tol),
            None => params,
        };
        match &$o.algorithm {
            Some(a) => params.algorithm(a.parse()?),
            None => params,
        }
    }};
}

/// Prints the fit's time and `summary` (a format string and its arguments), saves the model
/// when `--save` asks for it and returns its predictions on `xe`.
macro_rules! report_save_predict {
    ($model:expr, $o:expr, $start:expr, $xe:expr, $summary:expr) => {{
        println!(
            "fit in {:.3} s: {}",
            $start.elapsed().as_secs_f64(),
            $summary
        );
        if let Some(path) = &$o.save {
            $model.save(path)?;
        }
        $model.predict($xe)?
    }};
}

fn labels(t: &Targets) -> fwsvm::Result<&[f64]> {
    match t {
        Targets::Single(y) => Ok(y),
        Targets::Multi { .. } => Err(fwsvm::FwsvmError::InvalidInput(
            "multilabel files are not supported".into(),
        )),
    }
}

fn run(o: &Options) -> fwsvm::Result<()> {
    let start = Instant::now();
    let paths: Vec<std::path::PathBuf> = o.files.iter().map(Into::into).collect();
    let sources: Vec<Source<'_>> = paths.iter().map(|p| Source::Path(p)).collect();
    let data = read_libsvm_sources(&sources, &ReadOptions::default())?;
    let (x, y) = (&data[0].x, labels(&data[0].y)?);
    println!(
        "read {} rows x {} features ({} files) in {:.3} s",
        x.n_rows(),
        x.n_cols(),
        data.len(),
        start.elapsed().as_secs_f64()
    );
    let kernel = Kernel::rbf(o.gamma.unwrap_or(1.0 / x.n_cols().max(1) as f64));
    let verbose = std::env::var("FWSVM_VERBOSE").is_ok_and(|v| v == "1");
    let (xe, ye) = match data.get(1) {
        Some(d) => (&d.x, labels(&d.y)?),
        None => (x, y),
    };
    let on = if data.len() > 1 { "test" } else { "training" };
    let start = Instant::now();
    let predicted = if o.svr {
        let mut params = with_common!(Svr::params(), o, kernel, verbose).nu(o.nu);
        if let Some(c) = o.c {
            params = params.c(c);
        }
        let model = params.fit(x, y)?;
        let (n_sv, epsilon) = (model.support().len(), model.epsilon());
        let summary = format!("{n_sv} support vectors, tube half-width {epsilon:.4}");
        let predicted = report_save_predict!(model, o, start, xe, summary);
        let mse = predicted
            .iter()
            .zip(ye)
            .map(|(p, t)| (p - t) * (p - t))
            .sum::<f64>()
            / ye.len().max(1) as f64;
        println!("{on} mean squared error: {mse:.6}");
        predicted
    } else if o.one_class {
        let mut params = with_common!(OneClass::params(), o, kernel, verbose).c(o.c);
        if let Some(nu) = o.nu {
            params = params.nu(nu);
        }
        let model = params.fit(x)?;
        let summary = format!(
            "{} support vectors, radius {:.4}",
            model.support().len(),
            model.radius()
        );
        let predicted = report_save_predict!(model, o, start, xe, summary);
        let outliers = predicted.iter().filter(|&&p| p < 0.0).count();
        println!("{on} outliers: {outliers}/{}", predicted.len());
        predicted
    } else {
        let mut params = with_common!(Svc::params(), o, kernel, verbose);
        if o.working_set.is_some() {
            params = params.working_set(o.working_set);
        }
        if let Some(c) = o.c {
            params = params.c(c);
        }
        if let Some(loss) = &o.loss {
            params = params.loss(loss.parse()?);
        }
        let model = params.fit(x, y)?;
        let steps: u64 = model.stats().iter().map(|s| s.n_iter).sum();
        let converged = model
            .stats()
            .iter()
            .all(|s| s.exit_reason == fwsvm::ExitReason::Converged);
        let summary = format!(
            "{} classes, {} support vectors, {steps} steps, {}",
            model.n_classes(),
            model.n_support(),
            if converged {
                "converged"
            } else {
                "stopped early"
            }
        );
        let predicted = report_save_predict!(model, o, start, xe, summary);
        let correct = predicted.iter().zip(ye).filter(|(p, t)| p == t).count();
        println!(
            "{on} accuracy: {:.4} ({correct}/{})",
            correct as f64 / ye.len().max(1) as f64,
            ye.len()
        );
        predicted
    };
    if let Some(path) = &o.save {
        println!("model saved to {path}");
    }
    if let Some(path) = &o.predictions {
        let text: String = predicted.iter().map(|p| format!("{p:?}\n")).collect();
        std::fs::write(path, text).map_err(|e| fwsvm::FwsvmError::io(path, &e))?;
    }
    Ok(())
}
