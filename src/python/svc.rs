//! The fits of the estimators (`fit_model` behind `fwsvm.SVC`, `fit_dual` behind SVR, NuSVR and
//! OneClassSVM, the simplex ball `fit_one_class` of the distributed solver), the one parameter
//! dict they take (`FitArgs`) and their statistics as dicts. Each fit runs as an
//! [`Interruptible`] call: Ctrl-C stops it, its progress reaches Python's `sys.stderr`.

use crate::Samples;
use std::time::Duration;

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{FeaturesArg, kernel_from};
use super::expansion_model::ExpansionHandle;
use super::interrupt::Interruptible;
use crate::data::Features;
use crate::error::FwsvmError;
use crate::kernel::{CachePrecision, KernelMatrix};
use crate::parallel::with_threads;
use crate::params::{Loss, Svc, SvcValidParams};
use crate::problem::SimplexProblem;
use crate::progress::{CancelMonitor, GapMeasure, ProgressDisplay};
use crate::solver::{Solution, solve};
use crate::solver::{SolverParams, SolverStats, Stopping};

/// The monitor of the fit `call`: Ctrl-C through its stop flag, and at `verbose` ≥ 1 progress
/// on stderr (see [`ProgressDisplay`]).
pub(super) fn fit_monitor(
    call: &Interruptible,
    verbose: u8,
    solver: &SolverParams,
    loss: Loss,
) -> ProgressDisplay<CancelMonitor> {
    let measure = match (loss, solver.stopping) {
        (Loss::Hinge, _) => GapMeasure::MaxViolation,
        (Loss::SquaredHinge, Stopping::RelativeGap | Stopping::Meb) => GapMeasure::Relative,
        _ => GapMeasure::Absolute,
    };
    ProgressDisplay::new(
        CancelMonitor(Some(call.stop_flag())),
        solver.tol,
        measure,
        verbose,
    )
}

/// Fits an SVC on `y` (two classes: one binary model; more: one-vs-one) with `params`, the
/// optional weights and warm start; Ctrl-C stops it.
pub(super) fn fit_model(
    py: Python<'_>,
    samples: Samples<'_>,
    params: FitArgs,
    warm_start: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<crate::SvcModel> {
    let warm = warm_start
        .map(|w| w.as_slice().map(<[f64]>::to_vec))
        .transpose()?;
    let (verbose, names) = (params.verbose, params.class_names.clone());
    let params = params.params(warm)?;
    let call = Interruptible::start(py)?;
    let mut monitor = fit_monitor(&call, verbose, params.solver(), params.loss())
        .with_class_names(names.unwrap_or_default());
    let model = call.run(py, || params.fit_weighted(samples, &mut monitor))??;
    if let [only] = model.stats() {
        monitor.finish(only);
    }
    Ok(model)
}

/// The per-step history as a dict of arrays under "history".
pub(super) fn put_history(
    out: &Bound<'_, PyDict>,
    h: &[crate::solver::HistoryEntry],
) -> PyResult<()> {
    let py = out.py();
    let hist = PyDict::new(py);
    let column = |f: fn(&crate::solver::HistoryEntry) -> f64| {
        h.iter().map(f).collect::<Vec<_>>().into_pyarray(py)
    };
    let counts = |f: fn(&crate::solver::HistoryEntry) -> u64| {
        h.iter()
            .map(|e| f(e) as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    };
    hist.set_item("iteration", counts(|e| e.iteration))?;
    hist.set_item("objective", column(|e| e.objective))?;
    hist.set_item("gap", column(|e| e.gap))?;
    hist.set_item("kind", h.iter().map(|e| e.kind.name()).collect::<Vec<_>>())?;
    hist.set_item("coreset_size", counts(|e| e.coreset_size as u64))?;
    hist.set_item("seconds", column(|e| e.seconds))?;
    out.set_item("history", hist)
}

/// The solver statistics every fit returns, as dict items: the one row of [`stats_table`].
pub(super) fn put_stats(out: &Bound<'_, PyDict>, s: &crate::solver::SolverStats) -> PyResult<()> {
    put_first(out, &stats_table(out.py(), std::slice::from_ref(s), &[])?)
}

/// The warnings a fit deserves ([`crate::progress::fit_warnings`]) under "warnings" in `out`:
/// `(is_convergence_warning, message)` pairs for the estimator to raise.
pub(super) fn put_warnings(
    out: &Bound<'_, PyDict>,
    stats: &[crate::solver::SolverStats],
    tol: f64,
    measure: GapMeasure,
    kernel: Option<(&str, &str)>,
) -> PyResult<()> {
    let found: Vec<(bool, String)> = crate::progress::fit_warnings(stats, tol, measure, kernel)
        .into_iter()
        .map(|w| (w.convergence, w.message))
        .collect();
    out.set_item("warnings", found)
}

/// The statistics columns of a fit (`SvcModel.statistics()`, or the pairs a Dask cluster solved)
/// as what `fwsvm.SVC` reports: `convergence` (a binary fit's one solve; for one-vs-one the worst
/// exit reason and relative gap, the summed steps and seconds, and every pair's columns under
/// "pairs" with its classes `i`, `j`), `n_iter` (per solve), `fit_status` (0: all converged),
/// `history` (a binary fit's record, a list per pair, or None) and `warnings` (see
/// [`put_warnings`]; `tol` on the loss's measure, the kernel named `kernel`).
#[pyfunction]
pub(crate) fn summarize_fit<'py>(
    table: &Bound<'py, PyDict>,
    tol: f64,
    loss: &str,
    kernel: &str,
) -> PyResult<Bound<'py, PyDict>> {
    use crate::solver::ExitReason;
    let py = table.py();
    let column = |name: &str| -> PyResult<Bound<'py, PyAny>> {
        table.get_item(name)?.ok_or_else(|| {
            pyo3::exceptions::PyKeyError::new_err(format!("no statistics column {name:?}"))
        })
    };
    let reasons: Vec<String> = column("exit_reason")?.extract()?;
    let floats = |name: &str| -> PyResult<Vec<f64>> { column(name)?.extract() };
    let (gap, relative_gap, quadratic) = (
        floats("gap")?,
        floats("relative_gap")?,
        floats("quadratic")?,
    );
    let stats: Vec<SolverStats> = (0..reasons.len())
        .map(|k| SolverStats {
            exit_reason: match reasons[k].as_str() {
                "max_iter" => ExitReason::MaxIterations,
                "time_limit" => ExitReason::TimeLimit,
                "no_progress" => ExitReason::NoProgress,
                _ => ExitReason::Converged,
            },
            gap: gap[k],
            relative_gap: relative_gap[k],
            quadratic: quadratic[k],
            ..SolverStats::default()
        })
        .collect();
    let hinge = loss == "hinge";
    let measure = if hinge {
        GapMeasure::MaxViolation
    } else {
        GapMeasure::Relative
    };
    let model = if hinge { "hinge-SVM" } else { "L2-SVM" };
    let out = PyDict::new(py);
    put_warnings(&out, &stats, tol, measure, Some((kernel, model)))?;
    let unconverged = reasons.iter().find(|r| *r != "converged");
    out.set_item("fit_status", i64::from(unconverged.is_some()))?;
    out.set_item("n_iter", column("n_iter")?)?;
    let pairs = table.copy()?;
    let history = pairs.get_item("history")?;
    pairs.del_item("history").ok();
    let convergence = PyDict::new(py);
    if stats.len() == 1 {
        put_first(&convergence, &pairs)?;
        out.set_item("history", history.map(|h| h.get_item(0)).transpose()?)?;
    } else {
        let n_classes = (1..).find(|k| k * (k - 1) / 2 >= stats.len()).unwrap_or(2);
        let (i, j): (Vec<usize>, Vec<usize>) = (0..n_classes)
            .flat_map(|i| (i + 1..n_classes).map(move |j| (i, j)))
            .unzip();
        let ordered = PyDict::new(py);
        ordered.set_item("i", i.into_pyarray(py))?;
        ordered.set_item("j", j.into_pyarray(py))?;
        let array = py.import("numpy")?.getattr("array")?;
        for (key, value) in pairs.iter() {
            let text_column = matches!(key.extract::<&str>()?, "exit_reason" | "cache_precision");
            ordered.set_item(
                &key,
                if text_column {
                    array.call1((value,))?
                } else {
                    value
                },
            )?;
        }
        let sum = |name: &str| -> PyResult<f64> { Ok(floats(name)?.iter().sum()) };
        convergence.set_item(
            "exit_reason",
            unconverged.map_or("converged", String::as_str),
        )?;
        convergence.set_item("n_iter", sum("n_iter")? as i64)?;
        convergence.set_item(
            "relative_gap",
            relative_gap.iter().copied().fold(f64::NAN, f64::max),
        )?;
        convergence.set_item("seconds", sum("seconds")?)?;
        convergence.set_item("pairs", ordered)?;
        out.set_item("history", history)?;
    }
    convergence.set_item("tol", tol)?;
    convergence.set_item("loss", loss)?;
    out.set_item("convergence", convergence)?;
    Ok(out)
}

/// (R², the score constant) of a solved ball ([`crate::problem::one_class::ball_constants`]):
/// the distributed ball's, from its driver's objective, αᵀQα and weights.
#[pyfunction]
pub(crate) fn ball_constants(
    objective: f64,
    quadratic: f64,
    alpha: PyReadonlyArray1<'_, f64>,
    c: f64,
) -> PyResult<(f64, f64)> {
    Ok(crate::problem::one_class::ball_constants(
        objective,
        quadratic,
        alpha.as_slice()?,
        c,
    ))
}

/// The first entry of every column of `table` (nested tables too) as scalar items of `out`.
fn put_first(out: &Bound<'_, PyDict>, table: &Bound<'_, PyDict>) -> PyResult<()> {
    for (key, column) in table.iter() {
        if let Ok(nested) = column.cast::<PyDict>() {
            let inner = PyDict::new(out.py());
            put_first(&inner, nested)?;
            out.set_item(key, inner)?;
        } else if let Ok(list) = column.cast::<PyList>() {
            out.set_item(key, list.get_item(0)?)?;
        } else {
            out.set_item(key, column.call_method1("item", (0,))?)?;
        }
    }
    Ok(())
}

/// Input checks shared by the fits without class labels (one-class, regression).
fn check_unlabelled_fit(
    init: &str,
    features: &crate::data::Features<'_>,
) -> Result<(), FwsvmError> {
    if init == "closest_pair" {
        return Err(FwsvmError::param(
            "init",
            "closest_pair needs two classes; use random or farthest",
        ));
    }
    if features.n_rows() == 0 {
        return Err(FwsvmError::InvalidInput("X has no rows (0 samples)".into()));
    }
    features.check_finite("X")
}

/// A fit's hyper-parameters as Python passes them: one dict (the estimator's resolved
/// parameters, `fwsvm.svm._fit_params`), the same for every fit function.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct FitArgs {
    pub(crate) c: f64,
    kernel: String,
    gamma: f64,
    degree: i64,
    coef0: f64,
    /// The solver (`None`: `swap`).
    #[pyo3(default)]
    algorithm: Option<String>,
    pub(crate) tol: f64,
    /// The stopping rule (`None`: `gap`).
    #[pyo3(default)]
    stopping: Option<String>,
    pub(crate) max_iter: i64,
    pub(crate) cache_size: f64,
    /// The first vertex (`None`: `random`).
    #[pyo3(default)]
    init: Option<String>,
    pub(crate) seed: u64,
    #[pyo3(default)]
    sample_size: Option<usize>,
    #[pyo3(default, from_py_with = super::convert::n_jobs)]
    pub(crate) n_threads: Option<usize>,
    #[pyo3(default)]
    pub(crate) verbose: u8,
    #[pyo3(default)]
    pub(crate) time_limit: Option<f64>,
    #[pyo3(default)]
    record_history: bool,
    /// The SVC's loss (`None`: the squared hinge, the simplex problems' loss).
    #[pyo3(default)]
    loss: Option<String>,
    /// ν: of the ν-SVC (with the hinge loss), ν-SVR and one-class (`fit_dual`), or the price of
    /// the L2-SVR's tube (`fit_svr`).
    #[pyo3(default)]
    nu: Option<f64>,
    /// The ε-SVR's tube half-width.
    #[pyo3(default)]
    epsilon: Option<f64>,
    /// Which of LIBSVM's other duals `fit_dual` solves: "one_class", "epsilon_svr", "nu_svr".
    #[pyo3(default)]
    dual: Option<String>,
    /// Probabilities: Platt's sigmoids for `fit_svc_model`, LIBSVM's Laplace scale (`-b 1`)
    /// for `fit_dual` of a regression.
    #[pyo3(default)]
    pub(crate) probability: bool,
    /// How progress lines name the classes (`fit_svc_model`).
    #[pyo3(default)]
    pub(crate) class_names: Option<Vec<String>>,
}

impl FitArgs {
    /// What `fit_dual`'s model takes: LIBSVM's duals are solved by SMO, so the Frank-Wolfe
    /// settings (algorithm, stopping, init, sample_size) keep their defaults there; the L2 models
    /// (`"l2_svr"`, `"ball"`) take no sample weights. Errors name the estimator's `loss`.
    fn check_dual_settings(&self, weighted: bool) -> PyResult<()> {
        let dual = self.dual.as_deref().unwrap_or_default();
        let l2_loss = match dual {
            "one_class" | "ball" => "squared_hinge",
            _ => "squared_epsilon_insensitive",
        };
        if matches!(dual, "l2_svr" | "ball") {
            if weighted {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "sample_weight applies to LIBSVM's models, not to loss='{l2_loss}'"
                )));
            }
            return Ok(());
        }
        let sample_size = self.sample_size.map(|s| s.to_string());
        for (name, value, default) in [
            ("algorithm", self.algorithm.as_deref(), "swap"),
            ("stopping", self.stopping.as_deref(), "gap"),
            ("init", self.init.as_deref(), "random"),
            ("sample_size", sample_size.as_deref(), "None"),
        ] {
            if let Some(value) = value.filter(|&v| v != default) {
                let value = if name == "sample_size" {
                    value.to_string()
                } else {
                    format!("'{value}'")
                };
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "{name}={value} applies to loss='{l2_loss}' (the Frank-Wolfe simplex problem); \
                     LIBSVM's model is solved by SMO"
                )));
            }
        }
        Ok(())
    }

    fn init(&self) -> Result<crate::solver::Init, FwsvmError> {
        self.init.as_deref().unwrap_or("random").parse()
    }

    /// Checked SVC parameters (the one-class and SVR fits use their solver and kernel).
    pub(crate) fn params(&self, warm_start: Option<Vec<f64>>) -> PyResult<SvcValidParams> {
        let solver = SolverParams {
            algorithm: self.algorithm.as_deref().unwrap_or("swap").parse()?,
            tol: self.tol,
            stopping: self.stopping.as_deref().unwrap_or("gap").parse()?,
            max_iter: (self.max_iter > 0).then_some(self.max_iter as u64),
            time_limit: self.time_limit.map(Duration::from_secs_f64),
            cache_size_mb: self.cache_size,
            cache_precision: CachePrecision::Auto,
            adaptive: true,
            sample_size: self.sample_size,
            init: self.init()?,
            seed: self.seed,
            verbose: self.verbose >= 2,
            record_history: self.record_history,
            resync_every: None,
            warm_start: None,
            shrinking: true,
            working_set: None,
        };
        let loss: Loss = self.loss.as_deref().unwrap_or("squared_hinge").parse()?;
        Ok(Svc::params()
            .c(self.c)
            .loss(loss)
            // ν makes the hinge-loss SVC the ν-SVC; with the squared hinge it is the L2-SVR's.
            .nu(self.nu.filter(|_| loss == Loss::Hinge))
            .kernel(kernel_from(
                &self.kernel,
                self.gamma,
                self.degree,
                self.coef0,
            )?)
            .solver(solver)
            .n_threads(self.n_threads)
            .warm_start(warm_start)
            .probability(self.probability)
            .check()?)
    }
}

/// One column of the statistics table: how a solve's entry is read.
enum Column {
    /// A name (`exit_reason`, `cache_precision`), as a list of strings.
    Name(fn(&SolverStats) -> &'static str),
    /// A count, as int64.
    Count(fn(&SolverStats) -> u64),
    /// A measurement, as float64.
    Value(fn(&SolverStats) -> f64),
}

/// The columns of [`stats_table`] in their order (the order `convergence_` shows them in).
const COLUMNS: [(&str, Column); 17] = [
    ("exit_reason", Column::Name(|p| p.exit_reason.name())),
    ("n_iter", Column::Count(|p| p.n_iter)),
    ("gap", Column::Value(|p| p.gap)),
    ("relative_gap", Column::Value(|p| p.relative_gap)),
    ("objective", Column::Value(|p| p.objective)),
    ("quadratic", Column::Value(|p| p.quadratic)),
    ("n_active", Column::Count(|p| p.n_active as u64)),
    ("columns_computed", Column::Count(|p| p.columns_computed)),
    ("cache_hits", Column::Count(|p| p.cache_hits)),
    ("cache_capacity", Column::Count(|p| p.cache_capacity as u64)),
    (
        "cache_precision",
        Column::Name(|p| p.cache_precision.name()),
    ),
    ("resyncs", Column::Count(|p| p.resyncs)),
    ("shrinks", Column::Count(|p| p.shrinks)),
    ("rejoins", Column::Count(|p| p.rejoins)),
    (
        "kernel_evaluations",
        Column::Count(|p| p.kernel_evaluations),
    ),
    ("sampled_steps", Column::Count(|p| p.sampled_steps)),
    ("seconds", Column::Value(|p| p.seconds)),
];

/// How one kind of step's count is read.
type StepCount = fn(&crate::solver::StepCounts) -> u64;

/// The step counts by kind, under "steps" in [`stats_table`].
const STEP_COLUMNS: [(&str, StepCount); 8] = [
    ("toward", |s| s.toward),
    ("away", |s| s.away),
    ("drop", |s| s.drop),
    ("swap_add", |s| s.swap_add),
    ("swap_drop", |s| s.swap_drop),
    ("corrective", |s| s.corrective),
    ("inner", |s| s.inner),
    ("coordinate", |s| s.coordinate),
];

/// The statistics of solves as columns (one entry per solve: per pair of classes of a
/// one-vs-one fit; [`COLUMNS`], and the step counts under "steps"), with the per-step histories
/// under "history" when they were recorded. A dict per pair cost ≈ 4 KB: 2 GB for 1,000 classes.
pub(super) fn stats_table<'py>(
    py: Python<'py>,
    stats: &[SolverStats],
    histories: &[Vec<crate::solver::HistoryEntry>],
) -> PyResult<Bound<'py, PyDict>> {
    let counts = |f: &dyn Fn(&SolverStats) -> u64| {
        let column: Vec<i64> = stats.iter().map(|p| f(p) as i64).collect();
        column.into_pyarray(py)
    };
    let out = PyDict::new(py);
    for (name, column) in &COLUMNS {
        match column {
            Column::Name(f) => {
                let list = PyList::empty(py);
                for p in stats {
                    list.append(pyo3::types::PyString::intern(py, f(p)))?;
                }
                out.set_item(name, list)?
            }
            Column::Count(f) => out.set_item(name, counts(f))?,
            Column::Value(f) => out.set_item(
                name,
                stats.iter().map(f).collect::<Vec<_>>().into_pyarray(py),
            )?,
        }
    }
    let steps = PyDict::new(py);
    for (name, f) in &STEP_COLUMNS {
        steps.set_item(name, counts(&|p| f(&p.steps)))?;
    }
    out.set_item("steps", steps)?;
    if histories.iter().any(|h| !h.is_empty()) {
        let list = PyList::empty(py);
        for h in histories {
            let d = PyDict::new(py);
            put_history(&d, h)?;
            list.append(d.get_item("history")?)?;
        }
        out.set_item("history", list)?;
    }
    Ok(out)
}

/// `values` as a NumPy array under `key`.
fn put<T: numpy::Element>(
    out: &Bound<'_, PyDict>,
    key: &str,
    values: impl Iterator<Item = T>,
) -> PyResult<()> {
    out.set_item(key, values.collect::<Vec<T>>().into_pyarray(out.py()))
}

/// Solves the simplex problem `problem` builds on the data's kernel matrix (the one-class and
/// SVR fits): the solution, and a dict holding its statistics (and history, if asked).
fn fit_unlabelled<'py, 'x>(
    py: Python<'py>,
    params: FitArgs,
    features: Features<'x>,
    warm_start: Option<Vec<f64>>,
    problem: impl FnOnce(KernelMatrix<'x>, f64) -> crate::Result<SimplexProblem<'x>> + Send,
) -> PyResult<(Solution, Bound<'py, PyDict>)> {
    let (verbose, record_history, n_threads, c) = (
        params.verbose,
        params.record_history,
        params.n_threads,
        params.c,
    );
    let init = params.init.clone().unwrap_or_else(|| "random".into());
    let params = params.params(None)?;
    check_unlabelled_fit(&init, &features)?;
    let solver = SolverParams {
        warm_start,
        ..params.solver().clone()
    };
    let call = Interruptible::start(py)?;
    let mut monitor = fit_monitor(&call, verbose, params.solver(), params.loss());
    let kernel = params.kernel();
    let solution = call.run(py, || {
        with_threads(n_threads, || {
            solve(
                &problem(KernelMatrix::new(kernel, features), c)?,
                &solver,
                &mut monitor,
            )
        })
    })???;
    monitor.finish(&solution.stats);
    let out = PyDict::new(py);
    put_stats(&out, &solution.stats)?;
    if record_history {
        put_history(&out, &solution.history)?;
    }
    Ok((solution, out))
}

/// Fits the SVDD / minimum enclosing ball with squared slacks (see `problem::one_class`),
/// optionally warm-started from `warm_start` (one simplex weight per row). Returns the
/// support, α, the objective (R̃²) and the statistics.
#[pyfunction]
#[pyo3(signature = (x, params, *, warm_start=None))]
pub(crate) fn fit_one_class<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    params: FitArgs,
    warm_start: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let warm = warm_start
        .map(|w| w.as_slice().map(<[f64]>::to_vec))
        .transpose()?;
    let features = x.view()?;
    let (solution, out) = fit_unlabelled(py, params, features, warm, |km, c| {
        SimplexProblem::one_class(km, c)
    })?;
    let a = &solution.alpha;
    let support: Vec<usize> = (0..a.len()).filter(|&i| a[i] > 0.0).collect();
    put(&out, "alpha", support.iter().map(|&i| a[i]))?;
    put(&out, "support", support.iter().map(|&i| i as i64))?;
    Ok(out)
}

/// Fits one of LIBSVM's one-class ν-SVM, ε-SVR or ν-SVR (`params["dual"]`) with optional
/// sample weights. Returns the fitted expansion (support vectors and coefficients) and a dict
/// of ρ, ε (given or learned), the Laplace σ when asked, and the statistics. `warm_start`: the
/// ε-SVR's start β (see [`crate::DualParams::warm_start`]). `"l2_svr"` and `"ball"` fit the squared-loss
/// models instead (see [`fit_l2`]).
#[pyfunction]
#[pyo3(signature = (x, y, params, *, sample_weight=None, warm_start=None))]
pub(crate) fn fit_dual<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    y: Option<PyReadonlyArray1<'py, f64>>,
    params: FitArgs,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    warm_start: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<(ExpansionHandle, Bound<'py, PyDict>)> {
    params.check_dual_settings(sample_weight.is_some())?;
    if matches!(params.dual.as_deref(), Some("l2_svr" | "ball")) {
        return fit_l2(py, x.view()?, y, params);
    }
    let (verbose, record_history) = (params.verbose, params.record_history);
    let svc = params.params(None)?;
    let builder = match params.dual.as_deref() {
        Some("one_class") => crate::NuOneClass::params(),
        Some("epsilon_svr") => crate::EpsilonSvr::params(),
        Some("nu_svr") => crate::NuSvr::params(),
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown dual {other:?}; expected 'one_class', 'epsilon_svr' or 'nu_svr'"
            )));
        }
    };
    let valid = builder
        .c(params.c)
        .nu(params.nu.unwrap_or(0.5))
        .epsilon(params.epsilon.unwrap_or(0.1))
        .probability(params.probability)
        .warm_start(
            warm_start
                .map(|w| w.as_slice().map(<[f64]>::to_vec))
                .transpose()?,
        )
        .kernel(svc.kernel())
        .solver(svc.solver().clone())
        .n_threads(params.n_threads)
        .check()?;
    let features = x.view()?;
    let y = y.as_ref().map(|y| y.as_slice()).transpose()?.unwrap_or(&[]);
    let weights = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let call = Interruptible::start(py)?;
    let mut monitor = fit_monitor(&call, verbose, valid.solver(), Loss::Hinge);
    let model = call.run(py, || {
        valid.fit_weighted(Samples::new(features, y).weighted(weights), &mut monitor)
    })??;
    let stats = model.stats().expect("a fitted model has statistics");
    monitor.finish(stats);
    let expansion = ExpansionHandle::of_fit(&model.fit, model.dual_coef())?;
    let out = PyDict::new(py);
    out.set_item("rho", model.rho())?;
    out.set_item("epsilon", model.epsilon())?;
    out.set_item("sigma", model.sigma())?;
    put_stats(&out, stats)?;
    put_warnings(
        &out,
        std::slice::from_ref(stats),
        valid.solver().tol,
        GapMeasure::MaxViolation,
        None,
    )?;
    if record_history {
        put_history(&out, model.history())?;
    }
    Ok((expansion, out))
}

/// The L2 models of `fwsvm.SVR` and `fwsvm.OneClassSVM` by the Rust estimators ([`crate::Svr`],
/// [`crate::OneClass`]): the expansion (`"l2_svr"`: the standardised model's coefficients;
/// `"ball"`: α) and a dict of, for `"l2_svr"`, the intercept, the standardisation and the learned
/// ε, for `"ball"` the score constant, radius and offset (the ν-quantile of the training
/// scores); both with the statistics.
fn fit_l2<'py>(
    py: Python<'py>,
    features: Features<'_>,
    y: Option<PyReadonlyArray1<'py, f64>>,
    params: FitArgs,
) -> PyResult<(ExpansionHandle, Bound<'py, PyDict>)> {
    let (verbose, record_history) = (params.verbose, params.record_history);
    let svc = params.params(None)?;
    let call = Interruptible::start(py)?;
    let mut monitor = fit_monitor(&call, verbose, svc.solver(), Loss::SquaredHinge);
    let out = PyDict::new(py);
    let (expansion, stats, history) = if params.dual.as_deref() == Some("l2_svr") {
        let y = y.ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the SVR fit needs y"))?;
        let valid = crate::Svr::params()
            .c(params.c)
            .nu(params.nu)
            .kernel(svc.kernel())
            .solver(svc.solver().clone())
            .n_threads(params.n_threads)
            .check()?;
        let y = y.as_slice()?;
        let model = call.run(py, || valid.fit_with_monitor(features, y, &mut monitor))??;
        let expansion = ExpansionHandle::of_fit(&model.fit, model.dual_coef())?;
        out.set_item("intercept", model.intercept())?;
        let (mean, scale) = model.y_standardisation();
        out.set_item("y_mean", mean)?;
        out.set_item("y_scale", scale)?;
        out.set_item("epsilon", model.epsilon())?;
        (expansion, model.stats().cloned(), model.history().to_vec())
    } else {
        let valid = crate::OneClass::params()
            .nu(params.nu.unwrap_or(0.5))
            .c(Some(params.c))
            .kernel(svc.kernel())
            .solver(svc.solver().clone())
            .n_threads(params.n_threads)
            .check()?;
        let model = call.run(py, || valid.fit_with_monitor(features, &mut monitor))??;
        let expansion = ExpansionHandle::of_fit(&model.fit, model.alpha())?;
        out.set_item("score_constant", model.score_constant)?;
        out.set_item("radius", model.radius())?;
        out.set_item("offset", model.offset())?;
        (expansion, model.stats().cloned(), model.history().to_vec())
    };
    let stats = stats.expect("a fitted model has statistics");
    monitor.finish(&stats);
    put_stats(&out, &stats)?;
    put_warnings(
        &out,
        std::slice::from_ref(&stats),
        svc.solver().tol,
        GapMeasure::Relative,
        None,
    )?;
    if record_history {
        put_history(&out, &history)?;
    }
    Ok((expansion, out))
}

/// The variance of all entries of `x` (zeros included), for `gamma="scale"`.
#[pyfunction]
pub(crate) fn data_variance<'py>(py: Python<'py>, x: FeaturesArg<'py>) -> PyResult<f64> {
    let x = x.view()?;
    Ok(py.detach(|| x.variance()))
}
