//! Decision values that Ctrl-C stops: `fwsvm._core.decision_values` takes the cancel token of
//! `run_interruptible` and computes in row blocks of about 0.1 s (see [`crate::model::by_row_blocks`]), so a KeyboardInterrupt arrives within
//! a block, not after tens of seconds of prediction.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use super::convert::{FeaturesArg, KernelArgs};
use super::svc::CancelToken;
use crate::model::decision_values_until;
use crate::parallel::with_threads;

/// f(x) = Σ coef_s k(sv_s, x) + intercept for every row of `x`, stopping (KeyboardInterrupt)
/// once `cancel` is set.
#[pyfunction]
#[pyo3(signature = (x, support_vectors, coef, intercept, kernel, *, cancel=None))]
pub(crate) fn decision_values<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    support_vectors: FeaturesArg<'py>,
    coef: PyReadonlyArray1<'py, f64>,
    intercept: f64,
    kernel: KernelArgs,
    cancel: Option<PyRef<'py, CancelToken>>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let n_threads = kernel.n_threads;
    let kernel = kernel.kernel()?;
    let (x, sv, coef) = (x.view()?, support_vectors.view()?, coef.as_slice()?);
    let stop = CancelToken::stop_check(cancel.as_deref());
    let values = py.detach(|| {
        with_threads(n_threads, || {
            decision_values_until(kernel, sv, coef, intercept, x, &stop)
        })
    })??;
    Ok(values.into_pyarray(py))
}
