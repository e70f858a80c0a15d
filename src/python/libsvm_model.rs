//! LIBSVM model files from Python: `fwsvm.load_libsvm_model` reads one here into the Rust
//! model an estimator holds (`SvcModel` or `KernelExpansion`), and `est.save_libsvm_model`
//! writes the held model ([`crate::model_file::libsvm`]); Python only sets its estimators'
//! other attributes.

use std::path::{Path, PathBuf};

use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::LibsvmModelError;
use super::expansion_model::{ExpansionHandle, empty_rows};
use super::svc_model::SvcHandle;
use crate::data::{CsrMatrix, DenseMatrix, FeatureMatrix};
use crate::model::SvcModel;
use crate::model_file::{LibsvmModel, SvmType};

/// Support vectors with at most this many values (rows × columns) are kept dense: LIBSVM's
/// models are usually small, and dense rows are queried faster.
const MAX_DENSE_SV_VALUES: usize = 1 << 24;

/// The model type named `name` (LIBSVM's `svm_type` line).
fn svm_type_of(name: &str) -> PyResult<SvmType> {
    SvmType::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown svm_type {name:?}")))
}

/// A file's support vectors over `n_cols` columns (at least the file's), dense when small;
/// the sparse rows are reused, not copied.
fn stored_rows(rows: CsrMatrix, n_cols: usize) -> crate::Result<FeatureMatrix> {
    let n = rows.n_rows();
    if n.checked_mul(n_cols)
        .is_none_or(|values| values > MAX_DENSE_SV_VALUES)
    {
        let (indptr, indices, data) = rows.into_parts();
        return Ok(FeatureMatrix::Sparse(CsrMatrix::new(
            indptr, indices, data, n_cols,
        )?));
    }
    let v = rows.view();
    let mut values = vec![0.0; n * n_cols];
    for r in 0..n {
        let (indices, data) = v.row(r);
        for (&j, &x) in indices.iter().zip(data) {
            values[r * n_cols + j as usize] = x;
        }
    }
    Ok(FeatureMatrix::Dense(DenseMatrix::new(values, n, n_cols)?))
}

/// Reads a LIBSVM model file into the model an estimator holds. Returns a dict: `svm_type`,
/// the kernel (`kernel` in scikit-learn's names, `gamma` (None when the file has none),
/// `degree`, `coef0`), `n_features` (the support vectors' columns: the file's highest index,
/// or `n_features` when given, which may not be lower) and `model`: an `SvcModel` for
/// classifiers, with `classes` (the labels, sorted) and `n_pairs`, or a `KernelExpansion` for
/// one-class and regression models, with their `rho`.
#[pyfunction]
#[pyo3(signature = (path, n_features=None))]
pub(crate) fn read_libsvm_model(
    py: Python<'_>,
    path: PathBuf,
    n_features: Option<usize>,
) -> PyResult<Bound<'_, PyDict>> {
    let file = py.detach(|| LibsvmModel::read(&path))?;
    let used = file.vectors.n_cols();
    let n_cols = match n_features {
        Some(n) if n < used => {
            return Err(LibsvmModelError::new_err(format!(
                "{}: support vectors use {used} features, more than n_features={n}",
                path.display()
            )));
        }
        Some(n) => n,
        None => used,
    }
    .max(1);
    let out = PyDict::new(py);
    out.set_item("svm_type", file.svm_type.name())?;
    out.set_item("kernel", file.kernel.name())?;
    out.set_item("gamma", file.kernel.gamma())?;
    let (degree, coef0) = match file.kernel {
        crate::Kernel::Poly { degree, coef0, .. } => (degree, coef0),
        crate::Kernel::Sigmoid { coef0, .. } => (3, coef0),
        _ => (3, 0.0),
    };
    out.set_item("degree", degree)?;
    out.set_item("coef0", coef0)?;
    out.set_item("n_features", n_cols)?;
    if file.svm_type.is_classifier() {
        let mut model = SvcModel::from_libsvm_owned(file)?;
        model.vectors = match std::mem::replace(&mut model.vectors, empty_rows(0, 0)?) {
            FeatureMatrix::Sparse(rows) => stored_rows(rows, n_cols)?,
            dense => dense,
        };
        out.set_item("classes", PyArray1::from_slice(py, &model.classes))?;
        out.set_item("n_pairs", model.intercept.len())?;
        out.set_item("model", SvcHandle { model })?;
    } else {
        let mut file = file;
        file.check()?;
        let support: Vec<usize> = (0..file.n_support_vectors()).collect();
        let rows = std::mem::replace(
            &mut file.vectors,
            CsrMatrix::new(vec![0], Vec::new(), Vec::new(), 0)?,
        );
        let vectors = stored_rows(rows, n_cols)?;
        let model = ExpansionHandle::new(file.kernel, &vectors, &support, &file.sv_coef, 1)?;
        out.set_item("rho", file.rho[0])?;
        out.set_item("model", model)?;
    }
    Ok(out)
}

/// Writes a LIBSVM model file (atomically).
fn write(py: Python<'_>, path: &Path, file: LibsvmModel) -> PyResult<()> {
    file.check()?;
    py.detach(|| file.write(path))?;
    Ok(())
}

/// `SvcModel.save_libsvm`: the classifier as a LIBSVM model file of type `svm_type` ("c_svc"
/// or "nu_svc"), its classes named by `labels` (sorted, one per class).
pub(super) fn save_svc(
    py: Python<'_>,
    model: &SvcModel,
    path: &Path,
    svm_type: &str,
    labels: Vec<f64>,
) -> PyResult<()> {
    let mut model = model.clone();
    model.classes = labels;
    model.check()?;
    let mut file = model.to_libsvm()?;
    file.svm_type = svm_type_of(svm_type)?;
    write(py, path, file)
}

/// `KernelExpansion.save_libsvm`: the expansion Σ coef_s k(x_s, x) as a LIBSVM model file of
/// type `svm_type` ("one_class", "epsilon_svr" or "nu_svr"), its coefficients times `scale`.
pub(super) fn save_expansion(
    py: Python<'_>,
    (kernel, vectors, coef): (crate::Kernel, &FeatureMatrix, &[f64]),
    path: &Path,
    svm_type: &str,
    scale: f64,
    rho: f64,
) -> PyResult<()> {
    let file = LibsvmModel {
        svm_type: svm_type_of(svm_type)?,
        kernel,
        labels: Vec::new(),
        rho: vec![rho],
        prob_a: Vec::new(),
        prob_b: Vec::new(),
        prob_density_marks: Vec::new(),
        n_support: Vec::new(),
        sv_coef: coef.iter().map(|c| c * scale).collect(),
        vectors: vectors.view().to_csr(),
    };
    write(py, path, file)
}
