//! The linear models and kernel approximation: `fwsvm.SGDSVC` (mini-batch SGD on the primal)
//! and the kernel values k(X, S) of `fwsvm.Nystroem`.

use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::{FeaturesArg, KernelArgs};
use super::svc::CancelToken;
use crate::error::FwsvmError;
use crate::kernel::cross_kernel;
use crate::parallel::with_threads;
use crate::params::Loss;
use crate::progress::{CancelMonitor, LogToSink};
use crate::solver::{Monitor, Schedule, SgdParams, fit_sgd};

/// Fits a linear SVM by mini-batch SGD (`y` holds ±1 labels). Returns `coef` (n_features),
/// `intercept`, and the run's `epochs`, `steps`, per-epoch `objective`, `converged`, `eta0`,
/// `decay` and `seconds`.
/// The SGD fit's hyper-parameters as one dict (`fwsvm.SGDSVC`'s, resolved).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct SgdArgs {
    c: f64,
    loss: String,
    batch_size: usize,
    max_epochs: usize,
    learning_rate: String,
    #[pyo3(default)]
    eta0: Option<f64>,
    #[pyo3(default)]
    decay: Option<f64>,
    step_every: usize,
    step_factor: f64,
    average: bool,
    tol: f64,
    n_iter_no_change: usize,
    fit_intercept: bool,
    seed: u64,
    #[pyo3(default)]
    n_threads: Option<usize>,
    #[pyo3(default)]
    verbose: u8,
}

#[pyfunction]
#[pyo3(signature = (x, y, params, *, sample_weight=None, cancel=None))]
pub(crate) fn fit_sgd_svc<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    y: PyReadonlyArray1<'py, f64>,
    params: SgdArgs,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    cancel: Option<PyRef<'py, CancelToken>>,
) -> PyResult<Bound<'py, PyDict>> {
    let schedule = match params.learning_rate.as_str() {
        "inverse" => Schedule::Inverse,
        "exponential" => Schedule::Exponential,
        "step" => Schedule::Step {
            every: params.step_every,
            factor: params.step_factor,
        },
        other => {
            return Err(FwsvmError::param(
                "learning_rate",
                format!("unknown schedule {other:?}; expected inverse, exponential or step"),
            )
            .into());
        }
    };
    let n_threads = params.n_threads;
    let params = SgdParams {
        c: params.c,
        loss: params.loss.parse::<Loss>()?,
        batch_size: params.batch_size,
        max_epochs: params.max_epochs,
        schedule,
        eta0: params.eta0,
        decay: params.decay,
        average: params.average,
        tol: params.tol,
        n_iter_no_change: params.n_iter_no_change,
        fit_intercept: params.fit_intercept,
        seed: params.seed,
        verbose: params.verbose >= 1,
    };
    let features = x.view()?;
    let y = y.as_slice()?;
    let weights = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    // The epochs' log (verbose) goes where this thread's progress goes: Python's sys.stderr when
    // that is redirected (the fit logs from a pool thread, so the sink is taken here).
    let mut monitor = LogToSink::new(CancelMonitor(cancel.map(|t| t.flag.clone())));
    let monitor: &mut (dyn Monitor + Send) = &mut monitor;
    let fit = py.detach(|| {
        with_threads(n_threads, || {
            fit_sgd(features, y, weights, &params, monitor)
        })
    })??;
    let out = PyDict::new(py);
    out.set_item("coef", fit.w.into_pyarray(py))?;
    out.set_item("intercept", fit.b)?;
    out.set_item("epochs", fit.epochs)?;
    out.set_item("steps", fit.steps)?;
    out.set_item("objective", fit.objective.into_pyarray(py))?;
    out.set_item("converged", fit.converged)?;
    out.set_item("eta0", fit.eta0)?;
    out.set_item("decay", fit.decay)?;
    out.set_item("seconds", fit.seconds)?;
    Ok(out)
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
