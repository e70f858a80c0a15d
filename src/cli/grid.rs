//! `fwsvm grid`: LIBSVM's `tools/grid.py`, C and γ of C-SVC chosen by cross-validation
//! accuracy over log2 grids. Each point's rate is what `fwsvm train -v n` prints for it (the
//! same folds, fits and predictions); points run in parallel, each fit with a share of the
//! threads (a fit's result does not depend on its thread count).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use super::files::{refuse_same_file, write_output};
use super::train::{TrainOptions, Training, accuracy, check_folds, cross_validation_predictions};
use super::{CliError, Context};
use crate::data::CsrMatrix;
use crate::format::g6;

/// A grid axis holds at most this many values (`-log2c 0,1e9,1` asked for a billion fits).
const MAX_GRID_VALUES: f64 = 10_000.0;

fn usage(prog: &str) -> String {
    let train = prog.replace("grid", "train");
    format!(
        "usage: {prog} [grid_options] [svm_options] dataset

Choose C and gamma of C-SVC by cross-validation accuracy (as LIBSVM's tools/grid.py).

grid_options:
  -log2c {{begin,end,step | null}}  log2 of C (default -5,15,2)
  -log2g {{begin,end,step | null}}  log2 of gamma (default 3,-15,-2)
  -v n                            n-fold cross validation (default 5)
  -out {{pathname | null}}          write 'log2c=.. log2g=.. rate=..' lines (default dataset.out)
  -png, -gnuplot, -svmtrain       accepted and ignored (no plot; fwsvm trains)

svm_options: as {train} (-t -d -r -m -e -wi -a -j --loss -q);
prints one line per grid point, then 'best_c best_g best_rate'."
    )
}

/// grid.py's `begin,end,step` of log2 values (`null`: not searched).
fn grid_range(text: &str, option: &str) -> Result<Option<Vec<f64>>, CliError> {
    if text == "null" {
        return Ok(None);
    }
    let numbers: Vec<Option<f64>> = text.split(',').map(|v| v.trim().parse().ok()).collect();
    let [Some(begin), Some(end), Some(step)] = numbers[..] else {
        return Err(CliError::plain(format!(
            "{option} {text}: expected begin,end,step (e.g. -5,15,2) or null"
        )));
    };
    if step == 0.0 || (end - begin) * step < 0.0 {
        return Err(CliError::plain(format!(
            "{option} {text}: the step must go from begin towards end"
        )));
    }
    let count = (end - begin) / step + 1e-9;
    if !(count < MAX_GRID_VALUES) {
        // NaN too
        let shown = if count.is_nan() {
            "nan".to_owned()
        } else {
            format!("{count:.0}")
        };
        return Err(CliError::plain(format!(
            "{option} {text}: {shown} grid values; at most {MAX_GRID_VALUES} per axis"
        )));
    }
    Ok(Some(
        (0..=count as usize)
            .map(|k| begin + k as f64 * step)
            .collect(),
    ))
}

/// grid.py's own options; the rest are svm-train's.
struct GridOptions {
    log2c: Option<Vec<f64>>,
    log2g: Option<Vec<f64>>,
    folds: i64,
    /// `None`: the default (dataset.out); `Some("")`: `-out null`.
    out: Option<String>,
    rest: Vec<String>,
}

fn parse(argv: &[String]) -> Result<GridOptions, CliError> {
    let mut options = GridOptions {
        log2c: grid_range("-5,15,2", "-log2c")?,
        log2g: grid_range("3,-15,-2", "-log2g")?,
        folds: 5,
        out: None,
        rest: Vec::new(),
    };
    let mut k = 0;
    while k < argv.len() {
        let token = argv[k].as_str();
        let takes_value = matches!(
            token,
            "-log2c" | "-log2g" | "-v" | "-out" | "-png" | "-gnuplot" | "-svmtrain"
        );
        let Some(value) = argv.get(k + 1).map(String::as_str).filter(|_| takes_value) else {
            if takes_value {
                return Err(CliError::plain(format!("option {token} needs a value")));
            }
            match token {
                "-resume" => {
                    return Err(CliError::plain(
                        "-resume is not supported by fwsvm grid (a search takes minutes, not hours)",
                    ));
                }
                "-c" | "-g" => return Err(CliError::plain("Use -log2c and -log2g.")),
                _ => options.rest.push(token.to_owned()),
            }
            k += 1;
            continue;
        };
        match token {
            "-log2c" => options.log2c = grid_range(value, token)?,
            "-log2g" => options.log2g = grid_range(value, token)?,
            "-v" => {
                options.folds = value.trim().parse().map_err(|_| {
                    CliError::plain(format!(
                        "-v {value}: the number of folds must be an integer"
                    ))
                })?;
            }
            "-out" => options.out = Some(if value == "null" { "" } else { value }.to_owned()),
            _ => {} // -png, -gnuplot, -svmtrain: grid.py's plotting and svm-train paths
        }
        k += 2;
    }
    if options.log2c.is_none() && options.log2g.is_none() {
        return Err(CliError::plain(
            "-log2c and -log2g should not be null simultaneously",
        ));
    }
    if options.folds < 2 {
        return Err(CliError::plain(format!(
            "-v {}: cross validation needs at least 2 folds",
            options.folds
        )));
    }
    Ok(options)
}

/// One grid point: log2 C and log2 γ (`None` on an axis that is not searched).
type Point = (Option<f64>, Option<f64>);

/// What the points share.
struct Search<'a> {
    options: &'a TrainOptions,
    x: &'a CsrMatrix,
    y: &'a [f64],
    weights: Option<&'a [f64]>,
    folds: usize,
    cancel: &'a Arc<AtomicBool>,
}

impl Search<'_> {
    /// The cross-validation accuracy (%) at `point`, each fit with `threads` threads.
    fn rate(&self, (log2c, log2g): Point, threads: Option<usize>) -> Result<f64, CliError> {
        let mut options = self.options.clone();
        if let Some(v) = log2c {
            options.cost = v.exp2();
        }
        if let Some(v) = log2g {
            options.gamma = Some(v.exp2());
        }
        options.threads = threads;
        options.quiet = true; // no progress display per fit
        let predicted = cross_validation_predictions(
            &options,
            self.x,
            self.y,
            self.weights,
            self.folds,
            self.cancel,
        )?;
        Ok(accuracy(&predicted, self.y))
    }

    /// Runs every point on `workers` threads (each taking the next point in grid order) and
    /// passes each rate to `report` in grid order, on the calling thread, as soon as it and
    /// the points before it are done. The first error stops the search.
    fn run(
        &self,
        points: &[Point],
        workers: usize,
        fit_threads: Option<usize>,
        mut report: impl FnMut(usize, f64) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        if workers <= 1 {
            for (k, &point) in points.iter().enumerate() {
                report(k, self.rate(point, fit_threads)?)?;
            }
            return Ok(());
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<(usize, Result<f64, CliError>)>();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&point) = points.get(k) else { break };
                        let rate = self.rate(point, fit_threads);
                        if tx.send((k, rate)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut done: Vec<Option<f64>> = vec![None; points.len()];
            let mut shown = 0;
            let outcome = rx.iter().try_for_each(|(k, rate)| {
                done[k] = Some(rate?);
                while let Some(rate) = done.get(shown).copied().flatten() {
                    report(shown, rate)?;
                    shown += 1;
                }
                Ok(())
            });
            // On an error the workers stop after their current fit (Ctrl-C stops that too).
            stop.store(true, Ordering::Relaxed);
            outcome
        })
    }
}

pub(crate) fn run(argv: &[String], context: &mut Context<'_>) -> Result<(), CliError> {
    if argv.is_empty() || argv.iter().any(|a| a == "--help") {
        return context.say(false, &usage(context.prog));
    }
    let grid = parse(argv)?;
    // svm-train's options, checked as train checks them.
    let Some(options) = super::train::parse(&grid.rest)? else {
        return context.say(false, &usage(context.prog));
    };
    if let Some(extra) = &options.model_file {
        return Err(CliError::plain(format!(
            "unexpected argument {extra}: fwsvm grid takes one data file"
        )));
    }
    if options.svm_type != 0 {
        return Err(CliError::plain(
            "fwsvm grid searches C-SVC (-s 0) by cross-validation accuracy",
        ));
    }
    if grid.log2g.is_some() && options.kernel_name() == "linear" {
        return Err(CliError::plain(
            "the linear kernel (-t 0) has no gamma: add -log2g null",
        ));
    }
    let out = grid
        .out
        .clone()
        .unwrap_or_else(|| options.output_beside_data("out"));
    if !out.is_empty() {
        refuse_same_file(
            ("-out file", &out),
            &[("data file", Some(&options.training_file))],
        )?;
    }
    let Training { x, y, weights } = options.read_training(context)?;
    let folds = check_folds(grid.folds, x.n_rows(), context)?;

    let axis = |values: &Option<Vec<f64>>| -> Vec<Option<f64>> {
        values
            .as_ref()
            .map_or(vec![None], |v| v.iter().copied().map(Some).collect())
    };
    let points: Vec<Point> = axis(&grid.log2c)
        .into_iter()
        .flat_map(|c| axis(&grid.log2g).into_iter().map(move |g| (c, g)))
        .collect();
    let threads = options
        .threads
        .or_else(crate::parallel::default_threads)
        .unwrap_or_else(crate::parallel::available_cores)
        .max(1);
    let workers = threads.min(points.len());
    // One worker: its fits take the threads as asked (-j or the default); several share them.
    let fit_threads = if workers > 1 {
        Some((threads / workers).max(1))
    } else {
        options.threads
    };

    // grid.py's lines: "[local] log2c log2g rate (best c=..., g=..., rate=...)", in grid order.
    let (mut best_rate, mut best) = (-1.0, (None, None));
    let mut records = String::new();
    let quiet = options.quiet;
    let cancel = context.cancel.clone();
    let search = Search {
        options: &options,
        x: &x,
        y: &y,
        weights: weights.as_deref(),
        folds,
        cancel: &cancel,
    };
    search.run(&points, workers, fit_threads, |k, rate| {
        let point = points[k];
        if rate > best_rate {
            (best_rate, best) = (rate, point);
        }
        let record: String = labelled(point, g6)
            .map(|(name, v)| format!("log2{name}={v} "))
            .collect();
        records.push_str(&format!("{record}rate={}\n", g6(rate)));
        let here: Vec<String> = labelled(point, g6).map(|(_, v)| v).collect();
        let best_text: String = labelled(best, |v| g6(v.exp2()))
            .map(|(name, v)| format!("{name}={v}, "))
            .collect();
        context.say(
            quiet,
            &format!(
                "[local] {} {} (best {best_text}rate={})",
                here.join(" "),
                g6(rate),
                g6(best_rate)
            ),
        )
    })?;
    if !out.is_empty() {
        write_output(context, &out, |w| w.write_all(records.as_bytes()))?;
    }
    let chosen: Vec<String> = labelled(best, |v| g6(v.exp2())).map(|(_, v)| v).collect();
    context.say(false, &format!("{} {}", chosen.join(" "), g6(best_rate)))
}

/// The searched axes of `point` by name (`c`, `g`), each value written by `value`.
fn labelled(
    (c, g): Point,
    value: impl Fn(f64) -> String,
) -> impl Iterator<Item = (&'static str, String)> {
    [("c", c), ("g", g)]
        .into_iter()
        .filter_map(move |(name, v)| v.map(|v| (name, value(v))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(e: CliError) -> String {
        match e {
            CliError::Usage(m) | CliError::Plain(m) => m,
            CliError::Fwsvm(e) => e.to_string(),
        }
    }

    #[test]
    fn ranges_are_grid_pys() {
        assert_eq!(grid_range("-5,15,2", "-log2c").unwrap().unwrap().len(), 11);
        assert_eq!(
            grid_range("3,-15,-2", "-log2g").unwrap().unwrap(),
            [3.0, 1.0, -1.0, -3.0, -5.0, -7.0, -9.0, -11.0, -13.0, -15.0]
        );
        assert_eq!(
            grid_range("0,1,0.5", "-log2c").unwrap().unwrap(),
            [0.0, 0.5, 1.0]
        );
        assert!(grid_range("null", "-log2c").unwrap().is_none());
        for (text, expected) in [
            ("1,2", "expected begin,end,step"),
            ("a,b,c", "expected begin,end,step"),
            ("1,5,-2", "the step must go from begin towards end"),
            ("1,5,0", "the step must go from begin towards end"),
            ("0,1e9,1", "1000000000 grid values; at most 10000 per axis"),
            ("0,inf,1", "inf grid values; at most 10000 per axis"),
            ("0,nan,1", "nan grid values; at most 10000 per axis"),
        ] {
            let m = message(grid_range(text, "-log2c").unwrap_err());
            assert!(m.contains(expected) && m.starts_with("-log2c "), "{m}");
        }
    }

    #[test]
    fn grid_options_are_taken_out_and_the_rest_is_trains() {
        let argv = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
        let o = parse(&argv(&[
            "-t", "0", "-log2g", "null", "-png", "x.png", "-v", "3", "-q", "-out", "null", "d",
        ]))
        .unwrap();
        assert!(o.log2g.is_none() && o.log2c.as_ref().unwrap().len() == 11);
        assert_eq!((o.folds, o.out.as_deref()), (3, Some("")));
        assert_eq!(o.rest, ["-t", "0", "-q", "d"]);
        for (args, expected) in [
            (&["-c", "1", "d"][..], "Use -log2c and -log2g."),
            (&["-g", "1", "d"], "Use -log2c and -log2g."),
            (&["-v"], "option -v needs a value"),
            (
                &["-v", "x", "d"],
                "-v x: the number of folds must be an integer",
            ),
            (
                &["-v", "1", "d"],
                "-v 1: cross validation needs at least 2 folds",
            ),
            (&["-resume", "d"], "-resume is not supported"),
            (
                &["-log2c", "null", "-log2g", "null", "d"],
                "should not be null simultaneously",
            ),
        ] {
            let m = message(parse(&argv(args)).err().unwrap());
            assert!(m.contains(expected), "{args:?}: {m}");
        }
    }
}
