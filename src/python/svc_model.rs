//! `fwsvm._core.SvcModel`: the fitted classifier that `fwsvm.SVC` and `fwsvm.NuSVC` hold, a
//! handle on [`crate::model::SvcModel`].
//!
//! The model is Rust's: one-vs-one layout, votes, Platt probabilities, linear weights and
//! LIBSVM model files are implemented once, in the crate. The estimator's fitted attributes
//! (`support_`, `dual_coef_`, `intercept_`, …) are read-only NumPy views of this object's
//! arrays (the index arrays are converted copies). Classes are indices 0..K: Python maps
//! them to its labels.

use numpy::ndarray::{ArrayView1, ArrayView2};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::convert::{FeaturesArg, KernelArgs, SamplesArg};
use super::expansion_model::empty_rows;
use super::interrupt::{Interruptible, interruptible};
use super::svc::{FitArgs, fit_model, fit_monitor, stats_table};
use crate::data::{CsrMatrix, FeatureMatrix, Features};
use crate::kernel::Kernel;
use crate::model::{Pass, Query, SvcModel};
use crate::parallel::with_threads;
use crate::solver::SolverStats;

/// A fitted SVC (binary or one-vs-one), classes numbered 0..K.
#[pyclass(module = "fwsvm._core", name = "SvcModel", frozen)]
pub(crate) struct SvcHandle {
    pub(crate) model: SvcModel,
}

/// A read-only NumPy view of `values`, memory of the frozen `owner`, which it keeps alive.
pub(super) fn view<
    'py,
    T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True>,
    D: numpy::ndarray::Dimension,
>(
    owner: &Bound<'py, T>,
    values: numpy::ndarray::ArrayView<'_, f64, D>,
) -> Bound<'py, numpy::PyArray<f64, D>> {
    // SAFETY: the owner is frozen (never mutated after construction), so the memory stays where
    // it is for as long as `owner`, which the array keeps as its base, is alive.
    #[allow(unsafe_code)]
    let array = unsafe { numpy::PyArray::borrow_from_array(&values, owner.clone().into_any()) };
    array.readwrite().make_nonwriteable();
    array
}

/// A model with a precomputed kernel keeps no rows: queries are kernel values, read through
/// the training indices.
fn drop_gram_rows(mut model: SvcModel) -> SvcModel {
    if model.kernel == Kernel::Precomputed {
        let n_sv = model.support.len();
        let n_cols = model.vectors.view().n_cols();
        if let Ok(rows) = empty_rows(n_sv, n_cols) {
            model.vectors = rows;
        }
    }
    model
}

/// What a query's columns hold: "features", "training_kernel" (a precomputed kernel's
/// values) or "support_kernel" (a kernel function's values against the support vectors).
pub(super) fn query_of(columns: &str) -> PyResult<Query> {
    Ok(match columns {
        "features" => Query::Features,
        "training_kernel" => Query::TrainingKernel,
        "support_kernel" => Query::SupportKernel,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown query columns {other:?}"
            )));
        }
    })
}

/// The parts of an SVC model as Python holds them (`from_parts`): LIBSVM's layout.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct SvcParts<'py> {
    n_classes: usize,
    kernel: KernelArgs,
    /// The support vectors; `None` for a precomputed kernel (then `n_training` columns).
    #[pyo3(default)]
    vectors: Option<FeaturesArg<'py>>,
    #[pyo3(default)]
    n_training: usize,
    support: Vec<usize>,
    n_support: Vec<usize>,
    dual_coef: PyReadonlyArray1<'py, f64>,
    intercept: Vec<f64>,
    #[pyo3(default)]
    alpha: Vec<f64>,
    #[pyo3(default)]
    prob_a: Vec<f64>,
    #[pyo3(default)]
    prob_b: Vec<f64>,
    #[pyo3(default)]
    label_order: Vec<usize>,
}

/// The pairs of a one-vs-one fit solved elsewhere (`fwsvm.dask.fit`), as columns: pair p is
/// (i[p], j[p]) with support rows and coefficients at `offsets[p]..offsets[p + 1]`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct PairColumns {
    i: Vec<usize>,
    j: Vec<usize>,
    offsets: Vec<usize>,
    support: Vec<usize>,
    coef: Vec<f64>,
    intercept: Vec<f64>,
}

/// Fits `fwsvm.SVC`/`NuSVC` on `samples` `(x, y[, sample_weight])`, `y` class indices (0..K
/// as floats): one binary model for two classes, one-vs-one for more, Platt's probabilities
/// when `params["probability"]`.
#[pyfunction]
#[pyo3(signature = (samples, params, *, warm_start=None))]
pub(crate) fn fit_svc_model<'py>(
    samples: SamplesArg<'py>,
    params: FitArgs,
    warm_start: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<SvcHandle> {
    let py = samples.py();
    let model = fit_model(py, samples.view()?, params, warm_start)?;
    Ok(SvcHandle {
        model: drop_gram_rows(model),
    })
}

/// The model of one-vs-one pairs solved elsewhere (`fwsvm.dask.fit`), assembled as the
/// in-process fit assembles its own: `samples` `(x, y[, sample_weight])`, `x` the training
/// rows (or Gram matrix), `y` class indices; Platt's probabilities fitted here when
/// `params["probability"]`.
#[pyfunction]
pub(crate) fn svc_model_from_pairs<'py>(
    samples: SamplesArg<'py>,
    pairs: PairColumns,
    params: FitArgs,
) -> PyResult<SvcHandle> {
    let py = samples.py();
    let verbose = params.verbose;
    let params = params.params(None)?;
    let data = samples.view()?;
    let y = data.y;
    let n_pairs = pairs.i.len();
    if [pairs.j.len(), pairs.intercept.len(), pairs.offsets.len()]
        != [n_pairs, n_pairs, n_pairs + 1]
        || pairs.offsets.last() != Some(&pairs.support.len())
        || pairs.support.len() != pairs.coef.len()
    {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "inconsistent pair columns",
        ));
    }
    let mut classes: Vec<f64> = y.to_vec();
    classes.sort_by(f64::total_cmp);
    classes.dedup();
    let fit = crate::multiclass::OvoFit {
        classes,
        pairs: (0..n_pairs)
            .map(|p| {
                let range = pairs.offsets[p]..pairs.offsets[p + 1];
                crate::multiclass::PairFit {
                    i: pairs.i[p],
                    j: pairs.j[p],
                    support: pairs.support[range.clone()].to_vec(),
                    coef: pairs.coef[range].to_vec(),
                    intercept: pairs.intercept[p],
                    stats: SolverStats::default(),
                    history: Vec::new(),
                }
            })
            .collect(),
    };
    let mut model = fit.into_model(data.x, y, &params)?;
    if params.probability() {
        let call = Interruptible::start(py)?;
        let mut monitor = fit_monitor(&call, verbose, params.solver(), params.loss());
        let (a, b) = call.run(py, || {
            with_threads(params.n_threads(), || {
                params.fit_probability(data, 5, &mut monitor)
            })
        })???;
        model.prob_a = a;
        model.prob_b = b;
    }
    Ok(SvcHandle {
        model: drop_gram_rows(model),
    })
}

/// The keyword arguments of the model handles' `query`: what the columns of the rows hold
/// (`"features"`, `"training_kernel"`: a precomputed kernel's values, or `"support_kernel"`: a
/// kernel function's values against the support vectors) and the threads. Ctrl-C stops a
/// query between row blocks.
#[derive(Default)]
pub(super) struct QueryOptions {
    columns: Option<String>,
    n_threads: Option<usize>,
}

impl QueryOptions {
    /// The options of a `query(what, x, **options)` call.
    pub(super) fn of(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut out = Self::default();
        for (key, value) in options.into_iter().flat_map(|o| o.iter()) {
            match key.extract::<String>()?.as_str() {
                "columns" => out.columns = value.extract()?,
                "n_threads" => out.n_threads = super::convert::n_jobs(&value)?,
                other => {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "query() got an unexpected keyword argument {other:?}"
                    )));
                }
            }
        }
        Ok(out)
    }

    /// `work(rows, pass)` on the checked rows of `x` without the GIL, in the asked threads;
    /// Ctrl-C stops it (`pass.stop`).
    pub(super) fn run<T: Send>(
        self,
        py: Python<'_>,
        x: &FeaturesArg<'_>,
        work: impl Fn(Features<'_>, Pass<'_>) -> crate::Result<T> + Send + Sync,
    ) -> PyResult<T> {
        let query = query_of(self.columns.as_deref().unwrap_or("features"))?;
        let x = x.view()?;
        let out = interruptible(py, |stop| {
            with_threads(self.n_threads, || {
                x.check_finite("X")?;
                let pass = Pass {
                    query,
                    stop,
                    ..Pass::PLAIN
                };
                work(x, pass)
            })
        })???;
        Ok(out)
    }
}

#[pymethods]
impl SvcHandle {
    /// A model from its parts (a model file, a pickle, or a fit assembled in Python).
    #[staticmethod]
    fn from_parts(parts: SvcParts<'_>) -> PyResult<Self> {
        let kernel = parts.kernel.kernel()?;
        let n_sv = parts.support.len();
        let vectors = match &parts.vectors {
            Some(v) => owned_matrix(v)?,
            None => empty_rows(n_sv, parts.n_training)?,
        };
        let model = SvcModel {
            classes: (0..parts.n_classes).map(|c| c as f64).collect(),
            kernel,
            vectors,
            support: parts.support,
            n_support: parts.n_support,
            dual_coef: parts.dual_coef.as_slice()?.to_vec(),
            intercept: parts.intercept,
            alpha: parts.alpha,
            prob_a: parts.prob_a,
            prob_b: parts.prob_b,
            label_order: parts.label_order,
            stats: Vec::new(),
            history: Vec::new(),
            params: serde_json::Map::new(),
        };
        model.check()?;
        Ok(SvcHandle { model })
    }

    /// The model's `what` for every row of `x` (see [`QueryOptions`] for the keywords), in row
    /// blocks Ctrl-C stops:
    /// `"decision_function"`, (n,) for two classes, (n, K(K−1)/2) one-vs-one values for more;
    /// `"predict"`, class indices 0..K (LIBSVM's votes for more than two classes);
    /// `"predict_proba"`, (n, K) Platt's sigmoids coupled as LIBSVM's `-b 1`.
    #[pyo3(signature = (what, x, **options))]
    fn query<'py>(
        &self,
        py: Python<'py>,
        what: &str,
        x: FeaturesArg<'py>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, k, m) = (x.view()?.n_rows(), self.model.classes.len(), &self.model);
        let run = QueryOptions::of(options)?;
        Ok(match what {
            "decision_function" => {
                let values = run.run(py, &x, |x, pass| m.values_until(x, pass))?;
                let array = PyArray1::from_vec(py, values);
                if k == 2 {
                    array.into_any()
                } else {
                    array.reshape([n, self.model.intercept.len()])?.into_any()
                }
            }
            "predict" => {
                let classes = run.run(py, &x, |x, pass| m.predict_until(x, pass))?;
                PyArray1::from_iter(py, classes.into_iter().map(|c| c as i64)).into_any()
            }
            "predict_proba" => {
                let probs = run.run(py, &x, |x, pass| m.proba_until(x, pass))?;
                PyArray1::from_vec(py, probs).reshape([n, k])?.into_any()
            }
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown query {other:?}"
                )));
            }
        })
    }

    /// A binary fit's dual weights α as the start of a fit on `n_samples` rows, scaled by `scale`
    /// (see [`warm_start_of`]); `None` for one-vs-one.
    fn warm_start<'py>(
        &self,
        py: Python<'py>,
        n_samples: usize,
        scale: f64,
    ) -> Option<Bound<'py, PyArray1<f64>>> {
        let m = &self.model;
        (m.alpha.len() == m.support.len())
            .then(|| warm_start_of(py, &m.support, &m.alpha, n_samples, scale))
            .flatten()
    }

    /// The linear kernel's weights, one row per pair of classes (scikit-learn's `coef_`).
    fn linear_weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let w = py.detach(|| self.model.linear_weights())?;
        let d = self.model.vectors.view().n_cols();
        PyArray1::from_vec(py, w).reshape([self.model.intercept.len(), d])
    }

    /// How the solves ran, as columns with one entry per solve (per pair of classes), and
    /// their histories under "history" when recorded; no entries for a model read from a file
    /// or assembled from parts.
    fn statistics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_table(py, &self.model.stats, &self.model.history)
    }

    /// Writes the model as a LIBSVM model file of type `svm_type` ("c_svc" or "nu_svc"), its
    /// classes named by `labels` (sorted, one per class), atomically.
    fn save_libsvm(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        svm_type: &str,
        labels: Vec<f64>,
    ) -> PyResult<()> {
        super::libsvm_model::save_svc(py, &self.model, &path, svm_type, labels)
    }

    /// One part of the model by name, as the estimator's attributes read it: read-only views
    /// of `"classes"` (the fit's labels: indices 0..K from Python; a class whose samples all
    /// weigh 0 is not among them), `"intercept"` (one per pair), `"alpha"` (a binary fit's dual
    /// weights; empty for one-vs-one), `"prob_a"`/`"prob_b"` (Platt's sigmoids; empty without
    /// probabilities), `"dual_coef"` ((K−1) × n_SV) and `"vectors"` (dense rows, or the CSR
    /// parts `(data, indices, indptr, n_features)`); int32 copies of `"support"` (training
    /// indices, grouped by class) and `"n_support"`; `"label_order"` (a LIBSVM file's class
    /// order; empty: sorted).
    fn part<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let (py, m) = (slf.py(), &slf.get().model);
        let floats = |values: &[f64]| view(slf, ArrayView1::from(values)).into_any();
        let ints =
            |values: &[usize]| PyArray1::from_iter(py, values.iter().map(|&v| v as i32)).into_any();
        Ok(match name {
            "classes" => floats(&m.classes),
            "intercept" => floats(&m.intercept),
            "alpha" => floats(&m.alpha),
            "prob_a" => floats(&m.prob_a),
            "prob_b" => floats(&m.prob_b),
            "support" => ints(&m.support),
            "n_support" => ints(&m.n_support),
            "label_order" => {
                PyArray1::from_iter(py, m.label_order.iter().map(|&c| c as i64)).into_any()
            }
            "vectors" => matrix_view(slf, &m.vectors)?,
            "dual_coef" => {
                let shape = (m.classes.len() - 1, m.support.len());
                let values = ArrayView2::from_shape(shape, &m.dual_coef)
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                view(slf, values).into_any()
            }
            other => {
                return Err(pyo3::exceptions::PyKeyError::new_err(format!(
                    "no model part {other:?}"
                )));
            }
        })
    }
}

/// Weights `weights` of training rows `support` as the start of a fit on `n_samples` rows: these
/// rows first (appended ones start at 0), each weight times `scale` (LIBSVM's warm start along
/// C: the new C over the old, so bounded weights stay at the bound and yᵀα = 0 holds); `None`
/// when the support does not fit in `n_samples` rows.
pub(super) fn warm_start_of<'py>(
    py: Python<'py>,
    support: &[usize],
    weights: &[f64],
    n_samples: usize,
    scale: f64,
) -> Option<Bound<'py, PyArray1<f64>>> {
    if support.iter().any(|&s| s >= n_samples) {
        return None;
    }
    let mut start = vec![0.0; n_samples];
    for (&s, &w) in support.iter().zip(weights) {
        start[s] = w * scale;
    }
    Some(PyArray1::from_vec(py, start))
}

/// An owned copy of rows passed from Python.
pub(super) fn owned_matrix(x: &FeaturesArg<'_>) -> PyResult<FeatureMatrix> {
    Ok(match x.view()? {
        Features::Dense(d) => FeatureMatrix::Dense(crate::data::DenseMatrix::new(
            d.as_slice().to_vec(),
            d.n_rows(),
            d.n_cols(),
        )?),
        Features::Sparse(s) => FeatureMatrix::Sparse(CsrMatrix::new(
            s.indptr().iter().map(|p| p - s.indptr()[0]).collect(),
            s.indices().to_vec(),
            s.data().to_vec(),
            s.n_cols(),
        )?),
    })
}

/// `matrix` of the frozen `owner` for Python: a read-only view of dense rows, or the CSR parts
/// `(data view, indices, indptr, n_features)`.
pub(super) fn matrix_view<'py, T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True>>(
    owner: &Bound<'py, T>,
    matrix: &FeatureMatrix,
) -> PyResult<Bound<'py, PyAny>> {
    let py = owner.py();
    match matrix {
        FeatureMatrix::Dense(d) => {
            let values = ArrayView2::from_shape((d.n_rows(), d.n_cols()), d.as_slice())
                .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
            Ok(view(owner, values).into_any())
        }
        FeatureMatrix::Sparse(s) => {
            let v = s.view();
            Ok(PyTuple::new(
                py,
                [
                    view(owner, ArrayView1::from(v.data())).into_any(),
                    PyArray1::from_iter(py, v.indices().iter().map(|&i| i as i32)).into_any(),
                    PyArray1::from_iter(py, v.indptr().iter().map(|&p| p as i64)).into_any(),
                    s.n_cols().into_pyobject(py)?.into_any(),
                ],
            )?
            .into_any())
        }
    }
}
