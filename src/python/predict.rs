//! Decision values that Ctrl-C stops: `fwsvm._core.decision_values` is an interruptible call
//! (see [`super::interrupt`]) and computes in row blocks of about 0.1 s (see [`crate::model::by_row_blocks`]), so a KeyboardInterrupt arrives within
//! a block, not after tens of seconds of prediction.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use super::convert::{FeaturesArg, KernelArgs};
use super::interrupt::interruptible;
use crate::model::{by_row_blocks, check_query_features, row_cost};
use crate::parallel::with_threads;

/// f(x) = Σ coef_s k(sv_s, x) + intercept for every row of `x`; Ctrl-C stops it
/// (KeyboardInterrupt).
#[pyfunction]
pub(crate) fn decision_values<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    support_vectors: FeaturesArg<'py>,
    coef: PyReadonlyArray1<'py, f64>,
    intercept: f64,
    kernel: KernelArgs,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let n_threads = kernel.n_threads;
    let kernel = kernel.kernel()?;
    let (x, sv, coef) = (x.view()?, support_vectors.view()?, coef.as_slice()?);
    let values = interruptible(py, |stop| {
        with_threads(n_threads, || {
            check_query_features(&x, &sv)?;
            by_row_blocks(x, 1, row_cost(&sv), stop, |rows| {
                crate::model::decision_values(kernel, sv, coef, intercept, rows)
            })
        })
    })???;
    Ok(values.into_pyarray(py))
}
