//! `fwsvm._core.KernelExpansion`: the fitted expansion Σ_s coef_s k(x_s, x) that `fwsvm.SVR`,
//! `NuSVR` and `OneClassSVM` hold (LIBSVM's ε-SVR, ν-SVR and one-class models, and the L2
//! models), built from the Rust model a fit returns ([`crate::DualModel`], [`crate::SvrModel`],
//! [`crate::OneClassModel`]). Each estimator adds its own intercept and scale; its
//! `support_`, `support_vectors_` and `dual_coef_` are read from here (views where they can be).

use numpy::ndarray::ArrayView2;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::{FeaturesArg, KernelArgs};
use super::svc_model::{QueryOptions, owned_matrix, warm_start_of};
use crate::data::{CsrMatrix, FeatureMatrix};
use crate::kernel::Kernel;
use crate::model::{Query, by_row_blocks, decision_values};

/// Support vectors (their training indices) and coefficients under a kernel: one expansion,
/// or several over the same support vectors (one per class of the Crammer–Singer model).
#[pyclass(module = "fwsvm._core", name = "KernelExpansion", frozen)]
pub(crate) struct ExpansionHandle {
    kernel: Kernel,
    /// The rows; for a precomputed kernel no entries (queries are kernel values).
    vectors: FeatureMatrix,
    support: Vec<usize>,
    /// `n_outputs` × n_SV, row-major.
    coef: Vec<f64>,
    n_outputs: usize,
}

impl ExpansionHandle {
    /// The expansion of a fitted model's parts (a precomputed kernel's Gram rows are not kept):
    /// `coef` holds `n_outputs` rows of one coefficient per support vector.
    pub(crate) fn new(
        kernel: Kernel,
        vectors: &FeatureMatrix,
        support: &[usize],
        coef: &[f64],
        n_outputs: usize,
    ) -> crate::Result<Self> {
        let vectors = if kernel == Kernel::Precomputed {
            empty_rows(support.len(), vectors.view().n_cols())?
        } else {
            vectors.clone()
        };
        Self::checked(kernel, vectors, support.to_vec(), coef.to_vec(), n_outputs)
    }

    /// The expansion of a single solve's model (`fit`) with the coefficients `coef`.
    pub(crate) fn of_fit(fit: &crate::model::SingleFit, coef: &[f64]) -> crate::Result<Self> {
        Self::new(fit.kernel, &fit.vectors, &fit.support, coef, 1)
    }

    /// The expansion, if its parts agree: `n_outputs` × n_SV coefficients, n_SV rows.
    fn checked(
        kernel: Kernel,
        vectors: FeatureMatrix,
        support: Vec<usize>,
        coef: Vec<f64>,
        n_outputs: usize,
    ) -> crate::Result<Self> {
        let n_rows = vectors.view().n_rows();
        if n_outputs == 0 || n_rows != support.len() || coef.len() != n_outputs * n_rows {
            return Err(crate::FwsvmError::InvalidInput(format!(
                "inconsistent kernel expansion: {n_rows} support vectors, {} indices, {} coefficients \
                 for {n_outputs} outputs",
                support.len(),
                coef.len()
            )));
        }
        Ok(ExpansionHandle {
            kernel,
            vectors,
            support,
            coef,
            n_outputs,
        })
    }
}

/// `n` rows without entries over `n_cols` columns.
pub(crate) fn empty_rows(n: usize, n_cols: usize) -> crate::Result<FeatureMatrix> {
    Ok(FeatureMatrix::Sparse(CsrMatrix::new(
        vec![0; n + 1],
        Vec::new(),
        Vec::new(),
        n_cols,
    )?))
}

/// The parts of an expansion as Python holds them (a pickle, a model file, a LIBSVM file, a
/// fit assembled on Dask).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct ExpansionParts<'py> {
    kernel: KernelArgs,
    /// The support vectors; `None` for a precomputed or callable kernel (`n_training` columns).
    #[pyo3(default)]
    vectors: Option<FeaturesArg<'py>>,
    #[pyo3(default)]
    n_training: usize,
    support: Vec<usize>,
    coef: PyReadonlyArray1<'py, f64>,
    /// Rows of `coef` (one expansion each), default 1.
    #[pyo3(default)]
    n_outputs: Option<usize>,
}

#[pymethods]
impl ExpansionHandle {
    /// An expansion from its parts.
    #[staticmethod]
    fn from_parts(parts: ExpansionParts<'_>) -> PyResult<Self> {
        let kernel = parts.kernel.kernel()?;
        let coef = parts.coef.as_slice()?.to_vec();
        let vectors = match &parts.vectors {
            Some(v) => owned_matrix(v)?,
            None => empty_rows(parts.support.len(), parts.n_training)?,
        };
        let n_outputs = parts.n_outputs.unwrap_or(1);
        Ok(Self::checked(
            kernel,
            vectors,
            parts.support,
            coef,
            n_outputs,
        )?)
    }

    /// The first output's coefficients as the start of a fit on `n_samples` rows, scaled by
    /// `scale` (see [`warm_start_of`]: the ε-SVR's warm start along C).
    fn warm_start<'py>(
        &self,
        py: Python<'py>,
        n_samples: usize,
        scale: f64,
    ) -> Option<Bound<'py, PyArray1<f64>>> {
        let first = &self.coef[..self.support.len()];
        warm_start_of(py, &self.support, first, n_samples, scale)
    }

    /// The expansion's `what` for every row of `x` (see [`QueryOptions`] for the keywords), in
    /// row blocks Ctrl-C stops: `"values"`, Σ_s coef_s k(x_s, x), (n,) for one expansion and
    /// (n, n_outputs) for several; `"predict"`, the index of the largest output.
    #[pyo3(signature = (what, x, **options))]
    fn query<'py>(
        &self,
        py: Python<'py>,
        what: &str,
        x: FeaturesArg<'py>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !matches!(what, "values" | "predict") {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown query {what:?}"
            )));
        }
        let n_sv = self.support.len();
        let columns = QueryOptions::of(options)?.run(py, &x, |x, pass| {
            let unit;
            let (kernel, vectors) = match pass.query {
                Query::Features if self.kernel != Kernel::Precomputed => {
                    (self.kernel, &self.vectors)
                }
                Query::Features | Query::TrainingKernel => {
                    unit = FeatureMatrix::Sparse(crate::model::unit_vectors(
                        &self.support,
                        x.n_cols(),
                    )?);
                    (Kernel::Linear, &unit)
                }
                Query::SupportKernel => {
                    let positions: Vec<usize> = (0..n_sv).collect();
                    unit =
                        FeatureMatrix::Sparse(crate::model::unit_vectors(&positions, x.n_cols())?);
                    (Kernel::Linear, &unit)
                }
            };
            // One pass per output (an expansion without support vectors is 0 everywhere).
            (0..self.n_outputs)
                .map(|k| {
                    let coef = &self.coef[k * n_sv..(k + 1) * n_sv];
                    let vectors = vectors.view();
                    crate::model::check_query_features(&x, &vectors)?;
                    let cost = crate::model::row_cost(&vectors);
                    by_row_blocks(x, 1, cost, pass.stop, |rows| {
                        decision_values(kernel, vectors, coef, 0.0, rows)
                    })
                })
                .collect::<crate::Result<Vec<_>>>()
        })?;
        let n = x.view()?.n_rows();
        if what == "predict" {
            let best = |i: usize| {
                // numpy's argmax: the first largest output, or the first NaN.
                (0..self.n_outputs).fold(0, |b, k| {
                    let (v, top) = (columns[k][i], columns[b][i]);
                    if !top.is_nan() && (v.is_nan() || v > top) {
                        k
                    } else {
                        b
                    }
                })
            };
            return Ok(PyArray1::from_iter(py, (0..n).map(|i| best(i) as i64)).into_any());
        }
        if self.n_outputs == 1 {
            return Ok(PyArray1::from_vec(py, columns.concat()).into_any());
        }
        // Row i: the outputs' values at x_i.
        let values: Vec<f64> = (0..n * self.n_outputs)
            .map(|t| columns[t % self.n_outputs][t / self.n_outputs])
            .collect();
        Ok(PyArray1::from_vec(py, values)
            .reshape([n, self.n_outputs])?
            .into_any())
    }

    /// Writes the expansion as a LIBSVM model file of type `svm_type` ("one_class",
    /// "epsilon_svr" or "nu_svr"): the coefficients times `scale`, and `rho`; atomically.
    fn save_libsvm(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        svm_type: &str,
        scale: f64,
        rho: f64,
    ) -> PyResult<()> {
        if self.n_outputs != 1 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "a LIBSVM model file holds one expansion",
            ));
        }
        let expansion = (self.kernel, &self.vectors, &self.coef[..]);
        super::libsvm_model::save_expansion(py, expansion, &path, svm_type, scale, rho)
    }

    /// One part by name: `"support"` (the training indices, int32), `"dual_coef"` (an
    /// (n_outputs, n_SV) read-only view, scikit-learn's `dual_coef_`) or `"vectors"` (a read-only view of dense
    /// rows, or the CSR parts `(data, indices, indptr, n_features)` of sparse ones).
    fn part<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let (py, this) = (slf.py(), slf.get());
        Ok(match name {
            "support" => PyArray1::from_iter(py, this.support.iter().map(|&s| s as i32)).into_any(),
            "vectors" => super::svc_model::matrix_view(slf, &this.vectors)?,
            "dual_coef" => {
                let values =
                    ArrayView2::from_shape((this.n_outputs, this.support.len()), &this.coef)
                        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                super::svc_model::view(slf, values).into_any()
            }
            other => {
                return Err(pyo3::exceptions::PyKeyError::new_err(format!(
                    "no model part {other:?}"
                )));
            }
        })
    }
}
