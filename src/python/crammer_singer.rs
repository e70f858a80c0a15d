//! The Crammer–Singer joint multiclass SVM for `fwsvm.CrammerSingerSVC`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::SamplesArg;
use super::expansion_model::ExpansionHandle;
use super::interrupt::Interruptible;
use super::svc::FitArgs;
use super::svc::{fit_monitor, put_stats, put_warnings};
use crate::Samples;
use crate::error::FwsvmError;
use crate::kernel::KernelMatrix;
use crate::parallel::with_threads;
use crate::params::Loss;
use crate::progress::GapMeasure;
use crate::solver::solve_crammer_singer;

/// Fits the kernelised Crammer–Singer SVM on `samples` `(x, y)`, `y` class indices 0..K as
/// floats. Returns the
/// model, one expansion per class over the support (the rows with a non-zero coefficient in
/// some class), and the statistics.
#[pyfunction]
pub(crate) fn fit_crammer_singer<'py>(
    samples: SamplesArg<'py>,
    params: FitArgs,
    n_classes: usize,
) -> PyResult<(ExpansionHandle, Bound<'py, PyDict>)> {
    let py = samples.py();
    let (c, verbose, n_threads) = (params.c, params.verbose, params.n_threads);
    // The solver settings every fit takes (its stopping rule: the relative gap).
    let checked = params.params(None)?;
    let (kernel, params) = (checked.kernel(), checked.solver().clone());
    let Samples { x: features, y, .. } = samples.view()?;
    features.check_finite("X")?;
    let labels: Vec<usize> = y
        .iter()
        .map(|&v| {
            if v >= 0.0 && v.fract() == 0.0 && (v as usize) < n_classes {
                Ok(v as usize)
            } else {
                Err(FwsvmError::InvalidInput(format!(
                    "class index {v} is not in 0..{n_classes}"
                )))
            }
        })
        .collect::<Result<_, _>>()?;
    let call = Interruptible::start(py)?;
    let mut monitor = fit_monitor(&call, verbose, &params, Loss::SquaredHinge);
    let solution = call.run(py, || {
        with_threads(n_threads, || {
            let km = KernelMatrix::new(kernel, features);
            solve_crammer_singer(&km, &labels, n_classes, c, &params, &mut monitor)
        })
    })???;
    monitor.finish(&solution.stats);
    let m = labels.len();
    let beta = &solution.beta;
    let support: Vec<usize> = (0..m)
        .filter(|&i| (0..n_classes).any(|k| beta[k * m + i] != 0.0))
        .collect();
    let mut coef = Vec::with_capacity(n_classes * support.len());
    for k in 0..n_classes {
        coef.extend(support.iter().map(|&i| beta[k * m + i]));
    }
    let rows = features.select_rows(&support);
    let model = ExpansionHandle::new(kernel, &rows, &support, &coef, n_classes)?;
    let out = PyDict::new(py);
    put_stats(&out, &solution.stats)?;
    let stats = std::slice::from_ref(&solution.stats);
    put_warnings(&out, stats, params.tol, GapMeasure::Relative, None)?;
    Ok((model, out))
}
