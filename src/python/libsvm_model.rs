//! LIBSVM model files from Python: `fwsvm.load_libsvm_model` and `est.save_libsvm_model` read
//! and write them here ([`crate::model_file::libsvm`]); Python only maps the arrays to its
//! estimators' attributes.

use std::path::PathBuf;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::convert::{FeaturesArg, kernel_from};
use crate::data::{CsrMatrix, FeatureMatrix};
use crate::model::SvcModel;
use crate::model_file::{LibsvmModel, SvmType};

/// What Python passes to write a LIBSVM model file: the kernel, the support vectors and either
/// a classifier in fwsvm's layout (`classes`, …) or, for one-class and regression models, the
/// file's own `sv_coef` column and `rho`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct LibsvmArgs<'py> {
    svm_type: String,
    kernel: String,
    gamma: f64,
    degree: i64,
    coef0: f64,
    vectors: FeaturesArg<'py>,
    #[pyo3(default)]
    classes: Vec<f64>,
    #[pyo3(default)]
    n_support: Vec<usize>,
    #[pyo3(default)]
    dual_coef: Vec<f64>,
    #[pyo3(default)]
    intercept: Vec<f64>,
    #[pyo3(default)]
    prob_a: Vec<f64>,
    #[pyo3(default)]
    prob_b: Vec<f64>,
    #[pyo3(default)]
    label_order: Vec<usize>,
    #[pyo3(default)]
    sv_coef: Vec<f64>,
    #[pyo3(default)]
    rho: Vec<f64>,
}

fn csr_tuple<'py>(py: Python<'py>, m: &CsrMatrix) -> PyResult<Bound<'py, PyTuple>> {
    let view = m.view();
    (
        PyArray1::from_slice(py, view.data()),
        PyArray1::from_iter(py, view.indices().iter().map(|&i| i64::from(i))),
        PyArray1::from_iter(py, view.indptr().iter().map(|&i| i as i64)),
        m.n_cols(),
    )
        .into_pyobject(py)
}

fn matrix<'py>(
    py: Python<'py>,
    values: &[f64],
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    PyArray1::from_slice(py, values).reshape([rows, cols])
}

/// Reads a LIBSVM model file. Returns a dict: `svm_type`, the kernel (`kernel` in
/// scikit-learn's names, `gamma`, `degree`, `coef0`), `vectors` as CSR parts
/// `(data, indices, indptr, n_features)`, and for classifiers fwsvm's layout (`classes` sorted,
/// `n_support`, `dual_coef`, `intercept`, `prob_a`, `prob_b`, `label_order`: the file's label
/// order), else the file's `sv_coef` (n_SV × 1), `rho` and `prob_a` (SVR's σ).
#[pyfunction]
pub(crate) fn read_libsvm_model(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let file = py.detach(|| LibsvmModel::read(&path))?;
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
    if file.svm_type.is_classifier() {
        let model = SvcModel::from_libsvm(&file)?;
        let k = model.n_classes();
        let vectors = match model.support_vectors() {
            FeatureMatrix::Sparse(s) => s,
            FeatureMatrix::Dense(_) => unreachable!("read from a file: sparse"),
        };
        out.set_item("vectors", csr_tuple(py, vectors)?)?;
        out.set_item("classes", PyArray1::from_slice(py, model.classes()))?;
        out.set_item(
            "n_support",
            PyArray1::from_iter(py, model.n_support_per_class().iter().map(|&n| n as i32)),
        )?;
        out.set_item(
            "dual_coef",
            matrix(py, model.dual_coef(), k - 1, model.n_support())?,
        )?;
        out.set_item("intercept", PyArray1::from_slice(py, model.intercept()))?;
        let (a, b) = model.probability_parameters();
        out.set_item("prob_a", PyArray1::from_slice(py, a))?;
        out.set_item("prob_b", PyArray1::from_slice(py, b))?;
        out.set_item(
            "label_order",
            PyArray1::from_iter(py, model.label_order().iter().map(|&c| c as i64)),
        )?;
    } else {
        out.set_item("vectors", csr_tuple(py, &file.vectors)?)?;
        out.set_item(
            "sv_coef",
            matrix(py, &file.sv_coef, file.n_support_vectors(), file.n_coef())?,
        )?;
        out.set_item("rho", PyArray1::from_slice(py, &file.rho))?;
        out.set_item("prob_a", PyArray1::from_slice(py, &file.prob_a))?;
    }
    Ok(out)
}

/// Writes a LIBSVM model file (atomically) from [`LibsvmArgs`].
#[pyfunction]
pub(crate) fn write_libsvm_model(
    py: Python<'_>,
    path: PathBuf,
    model: LibsvmArgs<'_>,
) -> PyResult<()> {
    let svm_type = SvmType::from_name(&model.svm_type)
        .ok_or_else(|| PyValueError::new_err(format!("unknown svm_type {:?}", model.svm_type)))?;
    let kernel = kernel_from(&model.kernel, model.gamma, model.degree, model.coef0)?;
    let vectors = model.vectors.view()?.to_csr();
    let file = if svm_type.is_classifier() {
        let svc = SvcModel {
            kernel,
            support: (0..vectors.n_rows()).collect(),
            vectors: FeatureMatrix::Sparse(vectors),
            classes: model.classes,
            n_support: model.n_support,
            dual_coef: model.dual_coef,
            intercept: model.intercept,
            alpha: Vec::new(),
            prob_a: model.prob_a,
            prob_b: model.prob_b,
            label_order: model.label_order,
            stats: Vec::new(),
            history: Vec::new(),
            params: serde_json::Map::new(),
        };
        svc.check()?;
        let mut file = svc.to_libsvm()?;
        file.svm_type = svm_type;
        file
    } else {
        LibsvmModel {
            svm_type,
            kernel,
            labels: Vec::new(),
            rho: model.rho,
            prob_a: model.prob_a,
            prob_b: Vec::new(),
            prob_density_marks: Vec::new(),
            n_support: Vec::new(),
            sv_coef: model.sv_coef,
            vectors,
        }
    };
    py.detach(|| file.write(&path))?;
    Ok(())
}
