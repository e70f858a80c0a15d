//! LIBSVM model files from Python: `fwsvm.load_libsvm_model` reads one here into the Rust
//! model an estimator holds (`SvcModel` or `KernelExpansion`), and `est.save_libsvm_model`
//! writes the held model ([`crate::model_file::libsvm`]); Python only sets its estimators'
//! other attributes.

use std::path::{Path, PathBuf};

use numpy::{IntoPyArray, PyArray1};
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

/// An estimator as parts: its class name, parameters, fitted attributes and held model.
type EstimatorParts<'py> = (
    &'static str,
    Bound<'py, PyDict>,
    Bound<'py, PyDict>,
    Bound<'py, PyAny>,
);

/// The estimator a LIBSVM model type reads as (fwsvm's Python class).
fn estimator_name(svm_type: SvmType) -> &'static str {
    match svm_type {
        SvmType::CSvc => "SVC",
        SvmType::NuSvc => "NuSVC",
        SvmType::OneClass => "OneClassSVM",
        SvmType::EpsilonSvr => "SVR",
        SvmType::NuSvr => "NuSVR",
    }
}

/// Reads a LIBSVM model file as a fitted estimator's parts: `(estimator, params, attributes,
/// model)`, the class name, its parameters (scikit-learn's kernel names; `loss="hinge"` for
/// `c_svc`, `probability` when the file has `probA`/`probB`), the fitted attributes besides the
/// model, and the model an estimator holds (an `SvcModel` for classifiers, a `KernelExpansion`
/// for one-class and regression models). `n_features` may raise the number of columns above
/// the file's highest index, not lower it; `support_` is not in the file: `arange(n_SV)`.
#[pyfunction]
#[pyo3(signature = (path, n_features=None))]
pub(crate) fn read_libsvm_model<'py>(
    py: Python<'py>,
    path: PathBuf,
    n_features: Option<usize>,
) -> PyResult<EstimatorParts<'py>> {
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
    let estimator = estimator_name(file.svm_type);
    let gamma = file.kernel.gamma().unwrap_or(0.0);
    let (degree, coef0) = match file.kernel {
        crate::Kernel::Poly { degree, coef0, .. } => (degree, coef0),
        crate::Kernel::Sigmoid { coef0, .. } => (3, coef0),
        _ => (3, 0.0),
    };
    let params = PyDict::new(py);
    let kernel = file.kernel.name();
    params.set_item("kernel", kernel)?;
    match kernel {
        "linear" => params.set_item("gamma", "scale")?,
        _ => params.set_item("gamma", gamma)?,
    }
    params.set_item("degree", degree)?;
    params.set_item("coef0", coef0)?;
    let attributes = PyDict::new(py);
    let (model, n_sv) = if file.svm_type.is_classifier() {
        let mut model = SvcModel::from_libsvm_owned(file)?;
        model.vectors = match std::mem::replace(&mut model.vectors, empty_rows(0, 0)?) {
            FeatureMatrix::Sparse(rows) => stored_rows(rows, n_cols)?,
            dense => dense,
        };
        if estimator == "SVC" {
            params.set_item("loss", "hinge")?;
        }
        params.set_item("probability", !model.prob_a.is_empty())?;
        attributes.set_item("classes_", PyArray1::from_slice(py, &model.classes))?;
        let n_iter = vec![0_i64; model.intercept.len().max(1)];
        attributes.set_item("n_iter_", n_iter.into_pyarray(py))?;
        let n_sv = model.support.len();
        (SvcHandle { model }.into_pyobject(py)?.into_any(), n_sv)
    } else {
        let mut file = file;
        file.check()?;
        let n_sv = file.n_support_vectors();
        let support: Vec<usize> = (0..n_sv).collect();
        let rows = std::mem::replace(
            &mut file.vectors,
            CsrMatrix::new(vec![0], Vec::new(), Vec::new(), 0)?,
        );
        let vectors = stored_rows(rows, n_cols)?;
        let model = ExpansionHandle::new(file.kernel, &vectors, &support, &file.sv_coef, 1)?;
        // LIBSVM's decision value is Σ coef k − rho: intercept_ = −rho.
        let rho = file.rho[0];
        attributes.set_item("intercept_", PyArray1::from_slice(py, &[-rho]))?;
        attributes.set_item("n_iter_", 0)?;
        if file.svm_type == SvmType::OneClass {
            attributes.set_item("offset_", rho)?;
        } else {
            attributes.set_item("y_mean_", 0.0)?;
            attributes.set_item("y_scale_", 1.0)?;
            attributes.set_item("epsilon_", f64::NAN)?;
        }
        (model.into_pyobject(py)?.into_any(), n_sv)
    };
    attributes.set_item("_gamma", gamma)?;
    attributes.set_item("fit_status_", 0)?;
    attributes.set_item("n_features_in_", n_cols)?;
    attributes.set_item("shape_fit_", (n_sv, n_cols))?;
    let convergence = PyDict::new(py);
    convergence.set_item("exit_reason", "imported")?;
    convergence.set_item("source", path.display().to_string())?;
    attributes.set_item("convergence_", convergence)?;
    Ok((estimator, params, attributes, model))
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

/// LIBSVM's model type of fwsvm's estimators (their `_libsvm_type`), None for other objects.
fn libsvm_type(estimator: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    match estimator.getattr_opt("_libsvm_type")? {
        Some(kind) => kind.extract(),
        None => Ok(None),
    }
}

/// The kernels LIBSVM has (scikit-learn's names).
const LIBSVM_KERNELS: [&str; 4] = ["linear", "poly", "rbf", "sigmoid"];

/// `fwsvm`'s `save_libsvm_model`: a fitted SVC, NuSVC, SVR, NuSVR or (rbf) OneClassSVM as a
/// LIBSVM model file, atomically. fwsvm's models have LIBSVM's form Σ coef k − ρ per pair with
/// ρ = −intercept (the L2 models' bias is a plain intercept at prediction time), so the export is
/// exact; refused for kernels LIBSVM does not have and one-class balls of other kernels.
#[pyfunction]
pub(crate) fn save_libsvm_model(estimator: &Bound<'_, PyAny>, path: PathBuf) -> PyResult<()> {
    let py = estimator.py();
    let attr = |name: &str| estimator.getattr(name);
    let kind = libsvm_type(estimator)?;
    // The fitted kernel (a set_params after fit does not change the model that is written).
    let kernel = match estimator.getattr_opt("_kernel_fit_")? {
        Some(fitted) if fitted.is_truthy()? => fitted.get_item("kernel")?,
        _ => attr("kernel")?,
    };
    let name = kernel.extract::<String>().ok();
    let Some(name) = name.filter(|k| LIBSVM_KERNELS.contains(&k.as_str())) else {
        // LIBSVM_KERNELS as Python's repr of the sorted list.
        return Err(PyValueError::new_err(format!(
            "LIBSVM has no {} kernel; export supports ['linear', 'poly', 'rbf', 'sigmoid']",
            kernel.repr()?
        )));
    };
    let model = attr("_model")?;
    if let Some(kind @ ("c_svc" | "nu_svc")) = kind.as_deref() {
        let np = py.import("numpy")?;
        let classes = np.call_method1("asarray", (attr("classes_")?,))?;
        let number_type = np.getattr("number")?;
        if !np
            .call_method1("issubdtype", (classes.getattr("dtype")?, number_type))?
            .is_truthy()?
        {
            return Err(PyValueError::new_err(
                "LIBSVM model files need numeric class labels",
            ));
        }
        let labels = classes.call_method1("astype", (np.getattr("float64")?,))?;
        model.call_method1("save_libsvm", (path, kind, labels.call_method0("tolist")?))?;
        return Ok(());
    }
    let (scale, rho) = expansion_form(estimator, kind.as_deref(), &name, &kernel)?;
    model.call_method1("save_libsvm", (path, kind, scale, rho))?;
    Ok(())
}

/// LIBSVM's form Σ coef k − ρ of a fitted one-class or regression estimator of LIBSVM's type
/// `kind` with the kernel `name` (`kernel` as given): the factor of its `dual_coef_`, and ρ.
fn expansion_form(
    estimator: &Bound<'_, PyAny>,
    kind: Option<&str>,
    name: &str,
    kernel: &Bound<'_, PyAny>,
) -> PyResult<(f64, f64)> {
    let number = |name: &str| -> PyResult<f64> { estimator.getattr(name)?.extract() };
    let intercept = || -> PyResult<f64> { estimator.getattr("intercept_")?.get_item(0)?.extract() };
    let loss: String = match estimator.getattr_opt("loss")? {
        Some(loss) => loss.extract()?,
        None => String::new(),
    };
    Ok(match kind {
        // LIBSVM's own models: Σ coef k − ρ with intercept_ = −ρ.
        Some("epsilon_svr" | "nu_svr" | "one_class")
            if loss == "epsilon_insensitive" || loss == "hinge" =>
        {
            (1.0, -intercept()?)
        }
        // The L2-SVR on standardised targets: prediction = (Σ coef k + b)·scale + mean.
        Some("epsilon_svr") => {
            let y_scale = number("y_scale_")?;
            (y_scale, -(intercept()? * y_scale + number("y_mean_")?))
        }
        // decision = Σ 2α k(sv, x) + constant − k(x, x) − offset_: LIBSVM's Σ coef k − ρ only
        // when k(x, x) is constant.
        Some("one_class") if name != "rbf" => {
            return Err(PyValueError::new_err(format!(
                "LIBSVM export of a OneClassSVM needs the rbf kernel, not {}",
                kernel.repr()?
            )));
        }
        Some("one_class") => (2.0, 1.0 + number("offset_")? - number("_score_constant")?),
        _ => {
            return Err(PyValueError::new_err(format!(
                "LIBSVM export supports SVC, SVR and OneClassSVM, not {}",
                estimator.get_type().name()?
            )));
        }
    })
}

/// `(scale, rho)`: a fitted one-class or regression estimator in LIBSVM's form Σ coef k − ρ,
/// coef = scale · `dual_coef_` (what its LIBSVM model file holds).
#[pyfunction]
pub(crate) fn libsvm_expansion_form(estimator: &Bound<'_, PyAny>) -> PyResult<(f64, f64)> {
    let kind = libsvm_type(estimator)?;
    let kernel = estimator.getattr("kernel")?;
    let name = kernel.extract::<String>().unwrap_or_default();
    expansion_form(estimator, kind.as_deref(), &name, &kernel)
}
