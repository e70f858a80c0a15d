//! The CoCoA+ linear hinge SVM of `fwsvm.dask.DaskApproxSVC`: one shard's local round, its
//! pieces of the duality gap, its share of w, and the in-process solve (one shard: dual
//! coordinate descent for the hinge loss; more shards: the rounds simulated). See [`crate::solver::cocoa`] for the formulas (the
//! C-form: w = Σ α_i y_i [x_i; 1], 0 ≤ α_i ≤ C_i).
//!
//! Every function takes the labels and penalties as one array `yc` of y_i · C_i (the sign is
//! the label, the magnitude the penalty), and w with the bias weight last; the shard functions
//! take a shard as one tuple `(x, yc, alpha, w)`.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::{FeaturesArg, SamplesArg};
use crate::Samples;
use crate::data::{DenseF16View, DenseF32View, LinearRows};
use crate::error::{FwsvmError, Result};
use crate::solver::cocoa::{self, Aggregation, LocalParams};
use crate::solver::newton;

/// How a shard solves its subproblem (`σ′`, sweeps, seed and, optionally, the `reach` its
/// last round returned as `next_reach` — absent: every row is visited — and the round's
/// `start` — absent: w).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct LocalArgs<'py> {
    sigma: f64,
    passes: usize,
    seed: u64,
    #[pyo3(default)]
    reach: Option<f64>,
    #[pyo3(default)]
    start: Option<PyReadonlyArray1<'py, f64>>,
}

/// The in-process solve's settings: `tol`, `max_rounds`, `seed`, and optionally `shards`
/// (default 1), `aggregation` (`"add"` or `"line_search"`; by default `"add"` up to two
/// shards, the line search beyond, as `DaskApproxSVC`'s `"auto"`), `passes` (default 1) and `solver`
/// (`"cocoa"`, the default, or `"newton"`).
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
    #[pyo3(default)]
    solver: Option<String>,
}

impl SolveArgs {
    /// The shards, their aggregation and the sweeps' settings (σ′ from the aggregation).
    fn local(&self) -> PyResult<(usize, Aggregation, LocalParams)> {
        let shards = self.shards.unwrap_or(1);
        // None: as DaskApproxSVC's "auto", CoCoA+ up to two shards (one shard: plain dual
        // coordinate descent), the line search beyond.
        let aggregation = match self.aggregation.as_deref() {
            None if shards <= 2 => Aggregation::Add,
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
        let local = LocalParams {
            sigma: aggregation.sigma(shards),
            passes: self.passes.unwrap_or(1),
            seed: self.seed,
            reach: f64::INFINITY,
        };
        Ok((shards, aggregation, local))
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

/// A Python dict of the named values (numbers or arrays), or the first conversion's error.
macro_rules! py_dict {
    ($py:expr, $($key:literal => $value:expr),+ $(,)?) => {{
        let out = PyDict::new($py);
        $(out.set_item($key, $value)?;)+
        Ok(out)
    }};
}

/// A shard's rows: a C-contiguous `float32` or `float16` matrix (a float32 or float16 feature
/// map's block: a half or a quarter of the memory and of the bytes each sweep reads), or any
/// features `float64` takes (dense or CSR).
#[derive(FromPyObject)]
pub(crate) enum ShardRows<'py> {
    F32(PyReadonlyArray2<'py, f32>),
    F16(PyReadonlyArray2<'py, half::f16>),
    F64(FeaturesArg<'py>),
}

impl ShardRows<'_> {
    /// Runs `f` on the rows with the GIL released.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&dyn LinearRows) -> Result<T> + Send,
    ) -> PyResult<T> {
        match self {
            ShardRows::F32(a) => {
                let (n, d) = (a.shape()[0], a.shape()[1]);
                let rows = DenseF32View::new(a.as_slice()?, n, d)?;
                Ok(py.detach(|| f(&rows))?)
            }
            ShardRows::F16(a) => {
                use half::slice::HalfFloatSliceExt;
                let (n, d) = (a.shape()[0], a.shape()[1]);
                let rows = DenseF16View::new(a.as_slice()?.reinterpret_cast(), n, d)?;
                Ok(py.detach(|| f(&rows))?)
            }
            ShardRows::F64(x) => {
                let x = x.view()?;
                Ok(py.detach(|| f(&x))?)
            }
        }
    }
}

/// One shard's arguments, the tuple `(x, yc, alpha, w)`: its rows, y_i·C_i, its weights, w.
#[derive(FromPyObject)]
pub(crate) struct ShardArgs<'py>(
    ShardRows<'py>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
);

impl ShardArgs<'_> {
    /// Runs `f` on the rows, labels, penalties, weights and w with the GIL released.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&dyn LinearRows, &[f64], &[f64], &[f64], &[f64]) -> Result<T> + Send,
    ) -> PyResult<T> {
        let (y, c) = split(self.1.as_slice()?)?;
        let (alpha, w) = (self.2.as_slice()?, self.3.as_slice()?);
        self.0.run(py, |x| f(x, &y, &c, alpha, w))
    }
}

/// One CoCoA round on a shard `(x, yc, alpha, w)` from `params["start"]` (default w; see
/// [`cocoa::gap_and_round`]): returns `alpha` (the shard's new weights), `delta_w` (d + 1
/// numbers), `delta_alpha_sum` (Σ Δα_i), `steps`, `next_reach`, and the shard's pieces of the
/// gap at w, `alpha_sum`, `loss` and `violations`.
#[pyfunction]
pub(crate) fn cocoa_local_round<'py>(
    py: Python<'py>,
    shard: ShardArgs<'py>,
    params: LocalArgs<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let start = params.start.as_ref().map(|s| s.as_slice()).transpose()?;
    let params = LocalParams {
        sigma: params.sigma,
        passes: params.passes,
        seed: params.seed,
        reach: params.reach.unwrap_or(f64::INFINITY),
    };
    let (p, update) = shard.run(py, |x, y, c, a, w| {
        cocoa::gap_and_round(x, y, c, a, w, start.unwrap_or(w), &params)
    })?;
    py_dict!(py,
        "alpha" => update.alpha.into_pyarray(py),
        "delta_w" => update.delta_w.into_pyarray(py),
        "delta_alpha_sum" => update.delta_alpha_sum,
        "steps" => update.steps,
        "next_reach" => update.next_reach,
        "alpha_sum" => p.alpha_sum,
        "loss" => p.loss,
        "violations" => p.violations,
    )
}

/// A shard's `(x, yc, alpha, w)` pieces of the gap at w: `alpha_sum`, `loss`, `violations`.
#[pyfunction]
pub(crate) fn cocoa_gap_pieces<'py>(
    py: Python<'py>,
    shard: ShardArgs<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let p = shard.run(py, cocoa::gap_pieces)?;
    py_dict!(py, "alpha_sum" => p.alpha_sum, "loss" => p.loss, "violations" => p.violations)
}

/// A shard's share Σ α_i y_i [x_i; 1] of w(α).
#[pyfunction]
pub(crate) fn cocoa_shard_weights<'py>(
    py: Python<'py>,
    x: ShardRows<'py>,
    yc: PyReadonlyArray1<'py, f64>,
    alpha: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
    let (y, _) = split(yc.as_slice()?)?;
    let alpha = alpha.as_slice()?;
    let w = x.run(py, |x| {
        if alpha.len() != x.n_rows() || y.len() != x.n_rows() {
            return Err(FwsvmError::InvalidInput(format!(
                "{} weights and {} labels for {} rows",
                alpha.len(),
                y.len(),
                x.n_rows()
            )));
        }
        Ok(cocoa::shard_weights(x, &y, alpha))
    })?;
    Ok(w.into_pyarray(py))
}

/// The in-process solve on `samples` `(x, yc)`, yc_i = y_i·C_i (one shard: the hinge-loss dual
/// coordinate descent; more: the distributed rounds simulated): `alpha`, `w`, `primal`,
/// `dual`, `gap`, `relative_gap`, `rounds` and `steps` (γ per round). With
/// `solver="newton"` the Newton rounds of [`newton`] instead (no `alpha` or `steps`; the
/// best bounds seen).
#[pyfunction]
pub(crate) fn fit_linear_hinge<'py>(
    samples: SamplesArg<'py>,
    params: SolveArgs,
) -> PyResult<Bound<'py, PyDict>> {
    let py = samples.py();
    let Samples { x, y: yc, .. } = samples.view()?;
    let (y, c) = split(yc)?;
    let (shards, aggregation, local) = params.local()?;
    let (tol, max_rounds) = (params.tol, params.max_rounds);
    match params.solver.as_deref() {
        None | Some("cocoa") => {}
        Some("newton") => {
            let newton = newton::NewtonParams::new(tol, max_rounds, params.seed);
            let (w, s, rounds) =
                py.detach(|| newton::solve_in_process(&x, &y, &c, shards, newton))?;
            return py_dict!(py,
                "primal" => s.primal,
                "dual" => s.dual,
                "gap" => s.primal - s.dual,
                "relative_gap" => s.relative_gap,
                "rounds" => rounds,
                "w" => w.into_pyarray(py),
            );
        }
        Some(other) => {
            return Err(FwsvmError::param(
                "solver",
                format!("must be 'cocoa' or 'newton', got {other:?}"),
            )
            .into());
        }
    }
    let (alpha, w, cert, steps) = py.detach(|| {
        cocoa::solve_in_process(&x, &y, &c, shards, aggregation, &local, tol, max_rounds)
    })?;
    py_dict!(py,
        "primal" => cert.primal,
        "dual" => cert.dual,
        "gap" => cert.gap,
        "relative_gap" => cert.relative_gap(),
        "rounds" => steps.len(),
        "alpha" => alpha.into_pyarray(py),
        "w" => w.into_pyarray(py),
        "steps" => steps.into_pyarray(py),
    )
}

/// A Newton round's request, the dict `NewtonDriver.request()` returns: `w`, `p`, `mu_line`,
/// `mu`, `rate`, `seed` (see [`newton::Request`]).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct RequestArgs<'py> {
    w: PyReadonlyArray1<'py, f64>,
    p: PyReadonlyArray1<'py, f64>,
    mu_line: f64,
    mu: f64,
    rate: f64,
    seed: u64,
}

impl RequestArgs<'_> {
    fn request(&self) -> PyResult<newton::Request> {
        Ok(newton::Request {
            w: self.w.as_slice()?.to_vec(),
            p: self.p.as_slice()?.to_vec(),
            mu_line: self.mu_line,
            mu: self.mu,
            rate: self.rate,
            seed: self.seed,
        })
    }
}

/// One shard's Newton pieces for `request` over its `blocks`, a list of `(x, yc)` (rows as
/// [`ShardRows`], y_i·C_i), summed: a dict of `line`, `loss`, `alpha_sum`, `violations`,
/// `w_alpha`, `hessian` (packed upper triangle), `band` and `sampled` (see
/// [`newton::shard_pieces`]; block b's sampling is seeded `seed · φ + b`, φ a large odd
/// constant, so that no two (round, block) pairs share a sample).
#[pyfunction]
pub(crate) fn newton_pieces<'py>(
    py: Python<'py>,
    blocks: Vec<(ShardRows<'py>, PyReadonlyArray1<'py, f64>)>,
    request: RequestArgs<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut request = request.request()?;
    let mut total = newton::Pieces::zero(request.w.len());
    let seed = request.seed;
    for (b, (x, yc)) in blocks.iter().enumerate() {
        let (y, c) = split(yc.as_slice()?)?;
        request.seed = seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(b as u64);
        let part = x.run(py, |x| newton::shard_pieces(x, &y, &c, &request))?;
        total.add(&part)?;
    }
    pieces_dict(py, total)
}

fn pieces_dict(py: Python<'_>, p: newton::Pieces) -> PyResult<Bound<'_, PyDict>> {
    py_dict!(py,
        "line" => p.line.into_pyarray(py),
        "loss" => p.loss,
        "alpha_sum" => p.alpha_sum,
        "violations" => p.violations,
        "w_alpha" => p.w_alpha.into_pyarray(py),
        "hessian" => p.hessian.into_pyarray(py),
        "band" => p.band,
        "sampled" => p.sampled,
    )
}

/// A shard's answer as Python sends it back (the dict of [`newton_pieces`]).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct PiecesArgs<'py> {
    line: PyReadonlyArray1<'py, f64>,
    loss: f64,
    alpha_sum: f64,
    violations: usize,
    w_alpha: PyReadonlyArray1<'py, f64>,
    hessian: PyReadonlyArray1<'py, f64>,
    band: usize,
    sampled: usize,
}

impl PiecesArgs<'_> {
    fn pieces(&self) -> PyResult<newton::Pieces> {
        Ok(newton::Pieces {
            line: self.line.as_slice()?.to_vec(),
            loss: self.loss,
            alpha_sum: self.alpha_sum,
            violations: self.violations,
            w_alpha: self.w_alpha.as_slice()?.to_vec(),
            hessian: self.hessian.as_slice()?.to_vec(),
            band: self.band,
            sampled: self.sampled,
        })
    }
}

/// The Newton rounds' settings: `tol`, `max_rounds`, `seed`, and optionally `mu0`, `shrink`,
/// `mu_min`, `sample` ([`newton::NewtonParams`]' defaults otherwise).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct NewtonArgs {
    tol: f64,
    max_rounds: usize,
    seed: u64,
    #[pyo3(default)]
    mu0: Option<f64>,
    #[pyo3(default)]
    shrink: Option<f64>,
    #[pyo3(default)]
    mu_min: Option<f64>,
    #[pyo3(default)]
    sample: Option<f64>,
}

impl NewtonArgs {
    fn params(&self) -> newton::NewtonParams {
        let d = newton::NewtonParams::new(self.tol, self.max_rounds, self.seed);
        newton::NewtonParams {
            mu0: self.mu0.unwrap_or(d.mu0),
            shrink: self.shrink.unwrap_or(d.shrink),
            mu_min: self.mu_min.unwrap_or(d.mu_min),
            sample: self.sample.unwrap_or(d.sample),
            ..d
        }
    }
}

/// The driver of one binary problem's Newton rounds (see [`newton::Driver`]): `request()`
/// gives the dict every shard's `newton_pieces` takes; `advance(answers)` sums the shards'
/// answers and returns the round's status (`primal`, `dual`, `relative_gap` — the best
/// bounds so far —, `step`, `mu`, `band`, `converged`); `best()` is (w, primal).
#[pyclass(module = "fwsvm._core", name = "NewtonDriver")]
pub(crate) struct NewtonDriver(newton::Driver);

#[pymethods]
impl NewtonDriver {
    #[new]
    fn new(width: usize, rows: usize, params: NewtonArgs) -> PyResult<Self> {
        Ok(NewtonDriver(newton::Driver::new(
            width,
            rows,
            params.params(),
        )?))
    }

    fn request<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.0.request();
        py_dict!(py,
            "w" => r.w.into_pyarray(py),
            "p" => r.p.into_pyarray(py),
            "mu_line" => r.mu_line,
            "mu" => r.mu,
            "rate" => r.rate,
            "seed" => r.seed,
        )
    }

    fn advance<'py>(
        &mut self,
        py: Python<'py>,
        answers: Vec<PiecesArgs<'py>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let first = answers.first().ok_or_else(|| {
            FwsvmError::InvalidInput("advance needs at least one shard's answer".into())
        })?;
        let mut total = first.pieces()?;
        for a in &answers[1..] {
            total.add(&a.pieces()?)?;
        }
        let s = self.0.advance(&total)?;
        py_dict!(py,
            "primal" => s.primal,
            "dual" => s.dual,
            "relative_gap" => s.relative_gap,
            "step" => s.step,
            "mu" => s.mu,
            "band" => s.band,
            "converged" => s.converged,
        )
    }

    fn best<'py>(&self, py: Python<'py>) -> (Bound<'py, numpy::PyArray1<f64>>, f64) {
        let (w, primal) = self.0.best();
        (w.to_vec().into_pyarray(py), primal)
    }

    #[getter]
    fn rounds(&self) -> usize {
        self.0.rounds()
    }
}
