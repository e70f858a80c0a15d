//! The linear models and kernel approximation: `fwsvm.SGDSVC` (mini-batch SGD on the primal)
//! and the kernel values k(X, S) of `fwsvm.Nystroem` (and k(x, x) of the balls).

use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::{FeaturesArg, KernelArgs};
use super::svc::CancelToken;
use crate::error::FwsvmError;
use crate::kernel::cross_kernel;
use crate::parallel::{map_chunks, with_threads};
use crate::params::Loss;
use crate::progress::{CancelMonitor, LogToSink};
use crate::solver::{Schedule, SgdParams, fit_sgd};

/// The SGD fit's hyper-parameters as one dict (`fwsvm.SGDSVC`'s, resolved), with the number of
/// classes.
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
    n_classes: usize,
}

/// Fits `fwsvm.SGDSVC` by mini-batch SGD on class indices `y` (0..K as floats): one problem,
/// class 1 against class 0, for two classes; one-vs-rest for more (the problems side by side in
/// the fit's threads, problem k seeded with seed + k). Returns, one row or entry per problem,
/// `coef` (n_problems × n_features), `intercept`, `epochs`, `steps`, the per-epoch `objective`
/// (a list), `converged`, `eta0`, `decay` and `seconds`.
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
    let (n_threads, n_classes, seed) = (params.n_threads, params.n_classes, params.seed);
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
        seed,
        verbose: params.verbose >= 1,
    };
    let features = x.view()?;
    let y = y.as_slice()?;
    let weights = sample_weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let problems: Vec<usize> = if n_classes == 2 {
        vec![1]
    } else {
        (0..n_classes).collect()
    };
    // The epochs' log (verbose) goes where this thread's progress goes: Python's sys.stderr when
    // that is redirected (the problems log from pool threads, so the sinks are taken here).
    let flag = cancel.map(|t| t.flag.clone());
    let mut monitors: Vec<_> = problems
        .iter()
        .map(|_| LogToSink::new(CancelMonitor(flag.clone())))
        .collect();
    let work = problems
        .len()
        .saturating_mul(features.n_rows())
        .saturating_mul(1 << 8);
    let fits = py.detach(|| {
        with_threads(n_threads, || {
            map_chunks(&mut monitors, 1, work, |p, monitor| {
                let k = problems[p];
                let labels: Vec<f64> = y
                    .iter()
                    .map(|&c| if c == k as f64 { 1.0 } else { -1.0 })
                    .collect();
                let params = SgdParams {
                    seed: seed + k as u64,
                    ..params.clone()
                };
                fit_sgd(features, &labels, weights, &params, &mut monitor[0])
            })
        })
    })?;
    let fits = fits.into_iter().collect::<crate::Result<Vec<_>>>()?;
    let d = features.n_cols();
    let out = PyDict::new(py);
    let coef: Vec<f64> = fits.iter().flat_map(|f| f.w.iter().copied()).collect();
    out.set_item("coef", coef.into_pyarray(py).reshape([fits.len(), d])?)?;
    let column = |f: &dyn Fn(&crate::solver::SgdFit) -> f64| {
        fits.iter().map(f).collect::<Vec<_>>().into_pyarray(py)
    };
    out.set_item("intercept", column(&|f| f.b))?;
    out.set_item("epochs", column(&|f| f.epochs as f64))?;
    out.set_item("steps", column(&|f| f.steps as f64))?;
    out.set_item(
        "converged",
        fits.iter().map(|f| f.converged).collect::<Vec<_>>(),
    )?;
    out.set_item("eta0", column(&|f| f.eta0))?;
    out.set_item("decay", column(&|f| f.decay))?;
    out.set_item("seconds", column(&|f| f.seconds))?;
    let objective = pyo3::types::PyList::empty(py);
    for f in &fits {
        objective.append(f.objective.clone().into_pyarray(py))?;
    }
    out.set_item("objective", objective)?;
    Ok(out)
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
