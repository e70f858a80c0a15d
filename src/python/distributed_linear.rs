//! The CoCoA+ linear hinge SVM of `fwsvm.dask.DaskApproxSVC`: one shard's local round, its
//! pieces of the duality gap, its share of w, and the in-process solve (one shard: dual
//! coordinate descent for the hinge loss; more shards: the rounds simulated). See [`crate::solver::cocoa`] for the formulas (the
//! C-form: w = Σ α_i y_i [x_i; 1], 0 ≤ α_i ≤ C_i).
//!
//! Every function takes the labels and penalties as one array `yc` of y_i · C_i (the sign is
//! the label, the magnitude the penalty), and w with the bias weight last.

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::FeaturesArg;
use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::solver::cocoa::{self, Aggregation, LocalParams, SolveParams};

/// How a shard solves its subproblem (`σ′`, sweeps, seed).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct LocalArgs {
    sigma: f64,
    passes: usize,
    seed: u64,
}

/// The in-process solve's settings: `tol`, `max_rounds`, `seed`, and optionally `shards`
/// (default 1), `aggregation` (`"line_search"`, the default, or `"add"`) and `passes`
/// (default 1).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct SolveArgs {
    tol: f64,
    max_rounds: usize,
    seed: u64,
    #[pyo3(default)]
    shards: Option<usize>,
    #[pyo3(default)]
    aggregation: Option<String>,
    #[pyo3(default)]
    passes: Option<usize>,
}

impl SolveArgs {
    fn params(&self) -> PyResult<SolveParams> {
        let aggregation = match self.aggregation.as_deref() {
            None | Some("line_search") => Aggregation::LineSearch,
            Some("add") => Aggregation::Add,
            Some(other) => {
                return Err(FwsvmError::param(
                    "aggregation",
                    format!("must be 'line_search' or 'add', got {other:?}"),
                )
                .into());
            }
        };
        Ok(SolveParams {
            tol: self.tol,
            max_rounds: self.max_rounds,
            shards: self.shards.unwrap_or(1),
            aggregation,
            passes: self.passes.unwrap_or(1),
            seed: self.seed,
        })
    }
}

fn split(yc: &[f64]) -> PyResult<(Vec<f64>, Vec<f64>)> {
    if let Some(i) = yc.iter().position(|v| !(v.is_finite() && *v != 0.0)) {
        return Err(FwsvmError::InvalidInput(format!(
            "yc[{i}] = {} must be ±C_i with C_i positive and finite",
            yc[i]
        ))
        .into());
    }
    Ok((
        yc.iter().map(|v| v.signum()).collect(),
        yc.iter().map(|v| v.abs()).collect(),
    ))
}

/// Runs `f` on a shard's rows, labels, penalties, weights and w with the GIL released.
fn on_shard<T: Send>(
    py: Python<'_>,
    x: &FeaturesArg<'_>,
    yc: &PyReadonlyArray1<'_, f64>,
    alpha: &PyReadonlyArray1<'_, f64>,
    w: &PyReadonlyArray1<'_, f64>,
    f: impl FnOnce(&Features<'_>, &[f64], &[f64], &[f64], &[f64]) -> Result<T> + Send,
) -> PyResult<T> {
    let (y, c) = split(yc.as_slice()?)?;
    let x = x.view()?;
    let (alpha, w) = (alpha.as_slice()?, w.as_slice()?);
    Ok(py.detach(|| f(&x, &y, &c, alpha, w))?)
}

/// One CoCoA+ round on a shard: returns `alpha` (the shard's new weights), `delta_w`
/// (d + 1 numbers), `delta_alpha_sum` (Σ Δα_i) and `steps`.
#[pyfunction]
pub(crate) fn cocoa_local_round<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    yc: PyReadonlyArray1<'py, f64>,
    alpha: PyReadonlyArray1<'py, f64>,
    w: PyReadonlyArray1<'py, f64>,
    params: LocalArgs,
) -> PyResult<Bound<'py, PyDict>> {
    let params = LocalParams {
        sigma: params.sigma,
        passes: params.passes,
        seed: params.seed,
    };
    let update = on_shard(py, &x, &yc, &alpha, &w, |x, y, c, a, w| {
        cocoa::local_round(x, y, c, a, w, &params)
    })?;
    let out = PyDict::new(py);
    out.set_item("alpha", update.alpha.into_pyarray(py))?;
    out.set_item("delta_w", update.delta_w.into_pyarray(py))?;
    out.set_item("delta_alpha_sum", update.delta_alpha_sum)?;
    out.set_item("steps", update.steps)?;
    Ok(out)
}

/// A shard's pieces of the gap at w: `alpha_sum`, `loss`, `violations`.
#[pyfunction]
pub(crate) fn cocoa_gap_pieces<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    yc: PyReadonlyArray1<'py, f64>,
    alpha: PyReadonlyArray1<'py, f64>,
    w: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let p = on_shard(py, &x, &yc, &alpha, &w, cocoa::gap_pieces)?;
    let out = PyDict::new(py);
    out.set_item("alpha_sum", p.alpha_sum)?;
    out.set_item("loss", p.loss)?;
    out.set_item("violations", p.violations)?;
    Ok(out)
}

/// A shard's share Σ α_i y_i [x_i; 1] of w(α).
#[pyfunction]
pub(crate) fn cocoa_shard_weights<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    yc: PyReadonlyArray1<'py, f64>,
    alpha: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
    let (y, _) = split(yc.as_slice()?)?;
    let x = x.view()?;
    let alpha = alpha.as_slice()?;
    if alpha.len() != x.n_rows() {
        return Err(FwsvmError::InvalidInput(format!(
            "{} weights for {} rows",
            alpha.len(),
            x.n_rows()
        ))
        .into());
    }
    Ok(py
        .detach(|| cocoa::shard_weights(&x, &y, alpha))
        .into_pyarray(py))
}

/// The in-process solve (one shard: the hinge-loss dual coordinate descent; more: the
/// distributed rounds simulated): `alpha`, `w`, `primal`, `dual`, `gap`, `relative_gap`,
/// `rounds` and `steps` (γ per round).
#[pyfunction]
pub(crate) fn fit_linear_hinge<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    yc: PyReadonlyArray1<'py, f64>,
    params: SolveArgs,
) -> PyResult<Bound<'py, PyDict>> {
    let (y, c) = split(yc.as_slice()?)?;
    let x = x.view()?;
    let params = params.params()?;
    let sol = py.detach(|| cocoa::solve_in_process(&x, &y, &c, &params))?;
    let cert = sol.certificate;
    let out = PyDict::new(py);
    out.set_item("primal", cert.primal)?;
    out.set_item("dual", cert.dual)?;
    out.set_item("gap", cert.gap)?;
    out.set_item("relative_gap", cert.relative_gap())?;
    out.set_item("alpha", sol.alpha.into_pyarray(py))?;
    out.set_item("w", sol.w.into_pyarray(py))?;
    out.set_item("rounds", sol.rounds)?;
    out.set_item("steps", sol.steps.into_pyarray(py))?;
    Ok(out)
}
