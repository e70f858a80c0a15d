//! The linear models and kernel approximation: `fwsvm.SGDSVC` (mini-batch SGD on the primal)
//! and the kernel values k(X, S) of `fwsvm.Nystroem` (and k(x, x) of the balls).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{FeaturesArg, KernelArgs, SamplesArg};
use super::interrupt::Interruptible;
use crate::Samples;
use crate::error::FwsvmError;
use crate::estimators::sgd::{fit_sgd_one_vs_rest, sgd_problems};
use crate::kernel::cross_kernel;
use crate::parallel::with_threads;
use crate::params::Loss;
use crate::progress::{CancelMonitor, LogToSink};
use crate::solver::{Schedule, SgdFit, SgdParams};

/// η₀ as `fwsvm.SGDSVC` takes it: a number or `"auto"` (calibrated).
#[derive(FromPyObject)]
pub(crate) enum Eta0 {
    Value(f64),
    Name(String),
}

/// The SGD fit's hyper-parameters as one dict: `fwsvm.SGDSVC`'s `get_params()` (its names; other
/// entries are ignored) with the resolved `seed`, `n_threads`, `verbose` level and `n_classes`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct SgdArgs {
    #[pyo3(item("C"))]
    c: f64,
    loss: String,
    batch_size: usize,
    max_epochs: usize,
    learning_rate: String,
    eta0: Eta0,
    #[pyo3(default)]
    decay: Option<f64>,
    step_every: usize,
    step_factor: f64,
    average: bool,
    tol: f64,
    n_iter_no_change: usize,
    fit_intercept: bool,
    seed: u64,
    #[pyo3(default, from_py_with = super::convert::n_jobs)]
    n_threads: Option<usize>,
    #[pyo3(default)]
    verbose: u8,
    n_classes: usize,
}

impl SgdArgs {
    /// The solver's settings.
    fn params(&self) -> PyResult<SgdParams> {
        let schedule = match self.learning_rate.as_str() {
            "inverse" => Schedule::Inverse,
            "exponential" => Schedule::Exponential,
            "step" => Schedule::Step {
                every: self.step_every,
                factor: self.step_factor,
            },
            other => {
                return Err(FwsvmError::param(
                    "learning_rate",
                    format!("unknown schedule {other:?}; expected inverse, exponential or step"),
                )
                .into());
            }
        };
        let eta0 = match &self.eta0 {
            Eta0::Value(v) => Some(*v),
            Eta0::Name(name) if name == "auto" => None,
            Eta0::Name(other) => {
                return Err(FwsvmError::param(
                    "eta0",
                    format!("must be a positive number or \"auto\", got {other:?}"),
                )
                .into());
            }
        };
        Ok(SgdParams {
            c: self.c,
            loss: self.loss.parse::<Loss>()?,
            batch_size: self.batch_size,
            max_epochs: self.max_epochs,
            schedule,
            eta0,
            decay: self.decay,
            average: self.average,
            tol: self.tol,
            n_iter_no_change: self.n_iter_no_change,
            fit_intercept: self.fit_intercept,
            seed: self.seed,
            verbose: self.verbose >= 1,
        })
    }
}

/// Fits `fwsvm.SGDSVC` by mini-batch SGD on `samples` `(x, y[, sample_weight])`, `y` class
/// indices (0..K as floats; see
/// [`fit_sgd_one_vs_rest`]). Returns its fitted attributes by name, one row or entry per
/// problem: `coef_` (n_problems × n_features), `intercept_`, `n_iter_` (epochs), `objective_`
/// (the per-epoch objectives, a list), `converged_` and `eta0_`.
#[pyfunction]
pub(crate) fn fit_sgd_svc<'py>(
    samples: SamplesArg<'py>,
    params: SgdArgs,
) -> PyResult<Bound<'py, PyDict>> {
    let py = samples.py();
    let (n_threads, n_classes) = (params.n_threads, params.n_classes);
    let params = params.params()?;
    let Samples {
        x: features,
        y,
        weights,
    } = samples.view()?;
    // The epochs' log (verbose) goes where this thread's progress goes: Python's sys.stderr when
    // that is redirected (the problems log from pool threads, so the sinks are taken here).
    let call = Interruptible::start(py)?;
    let mut monitors: Vec<_> = (0..sgd_problems(n_classes))
        .map(|_| LogToSink::new(CancelMonitor(Some(call.stop_flag()))))
        .collect();
    let fits = call.run(py, || {
        with_threads(n_threads, || {
            fit_sgd_one_vs_rest(features, y, n_classes, weights, &params, &mut monitors)
        })
    })???;
    let d = features.n_cols();
    let out = PyDict::new(py);
    let coef: Vec<f64> = fits.iter().flat_map(|f| f.w.iter().copied()).collect();
    out.set_item("coef_", coef.into_pyarray(py).reshape([fits.len(), d])?)?;
    let column =
        |f: &dyn Fn(&SgdFit) -> f64| fits.iter().map(f).collect::<Vec<_>>().into_pyarray(py);
    out.set_item("intercept_", column(&|f| f.b))?;
    let epochs: Vec<i64> = fits.iter().map(|f| f.epochs as i64).collect();
    out.set_item("n_iter_", epochs.into_pyarray(py))?;
    let converged: Vec<bool> = fits.iter().map(|f| f.converged).collect();
    out.set_item("converged_", converged.into_pyarray(py))?;
    out.set_item("eta0_", column(&|f| f.eta0))?;
    let objective = PyList::empty(py);
    for f in &fits {
        objective.append(f.objective.clone().into_pyarray(py))?;
    }
    out.set_item("objective_", objective)?;
    Ok(out)
}

/// The model's settings for [`sgd_objective`]: `loss`, `C` and the fitted `coef_` and
/// `intercept_` (`fwsvm.SGDSVC`'s names).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct LinearModelArgs<'py> {
    loss: String,
    #[pyo3(item("C"))]
    c: f64,
    #[pyo3(item("coef_"))]
    coef: PyReadonlyArray2<'py, f64>,
    #[pyo3(item("intercept_"))]
    intercept: PyReadonlyArray1<'py, f64>,
}

/// The primal objective of each problem of a fitted `fwsvm.SGDSVC` on `samples`
/// `(x, y[, sample_weight])`, `y` class indices (−1: a label of no class); see
/// [`crate::estimators::sgd::sgd_objective`].
#[pyfunction]
pub(crate) fn sgd_objective<'py>(
    samples: SamplesArg<'py>,
    model: LinearModelArgs<'py>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let py = samples.py();
    let coef = model.coef.as_array().iter().copied().collect::<Vec<_>>();
    let Samples { x, y, weights } = samples.view()?;
    let values = crate::estimators::sgd::sgd_objective(
        x,
        y,
        weights,
        model.loss.parse::<Loss>()?,
        model.c,
        &coef,
        model.intercept.as_slice()?,
    )?;
    Ok(values.into_pyarray(py))
}

/// k(x_i, x_i) for every row of `x` (the ball's score and the distributed ball's linear term).
#[pyfunction]
pub(crate) fn kernel_diagonal<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    kernel: KernelArgs,
) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
    let (kernel, x) = (kernel.kernel()?, x.view()?);
    x.check_finite("X")?;
    let diagonal = py.detach(|| {
        crate::kernel::KernelMatrix::new(kernel, x)
            .diagonal()
            .to_vec()
    });
    Ok(diagonal.into_pyarray(py))
}

/// k(x_i, s_j) for every row of `x` and of `columns`: an n × s array.
#[pyfunction]
pub(crate) fn kernel_values<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    columns: FeaturesArg<'py>,
    kernel: KernelArgs,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n_threads = kernel.n_threads;
    let kernel = kernel.kernel()?;
    let (x, columns) = (x.view()?, columns.view()?);
    let (n, s) = (x.n_rows(), columns.n_rows());
    let values = py.detach(|| with_threads(n_threads, || cross_kernel(kernel, x, columns)))??;
    values.into_pyarray(py).reshape([n, s])
}
