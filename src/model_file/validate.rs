//! The checks every model file passes, on reading and before writing: known parameter and
//! attribute names, parameter values, finite scalars, CSR invariants and fitted shapes that
//! agree with each other (LIBSVM's layout), so prediction indexes within bounds.

use serde_json::Value;

use super::{Estimator, ModelArchive, NpyArray, format_error};
use crate::data::CsrView;
use crate::error::Result;
use crate::kernel::Kernel;

/// The constructor parameters every estimator has (the Python classes' `get_params()`).
const SHARED_PARAMS: [&str; 16] = [
    "C",
    "kernel",
    "gamma",
    "degree",
    "coef0",
    "algorithm",
    "tol",
    "stopping",
    "max_iter",
    "cache_size",
    "init",
    "sample_size",
    "random_state",
    "n_jobs",
    "verbose",
    "record_history",
];

/// Every constructor parameter of `estimator` (its Python class's `get_params()`).
fn known_param(estimator: Estimator, key: &str) -> bool {
    match estimator {
        Estimator::Svc
        | Estimator::Svr
        | Estimator::OneClass
        | Estimator::NuSvc
        | Estimator::NuSvr => SHARED_PARAMS.contains(&key) || own_params(estimator).contains(&key),
        Estimator::CrammerSinger => [
            "C",
            "kernel",
            "gamma",
            "degree",
            "coef0",
            "tol",
            "max_iter",
            "cache_size",
            "random_state",
            "n_jobs",
            "verbose",
        ]
        .contains(&key),
        Estimator::SgdSvc => [
            "C",
            "loss",
            "batch_size",
            "max_epochs",
            "learning_rate",
            "eta0",
            "decay",
            "step_every",
            "step_factor",
            "average",
            "tol",
            "n_iter_no_change",
            "fit_intercept",
            "class_weight",
            "random_state",
            "n_jobs",
            "verbose",
        ]
        .contains(&key),
        Estimator::Nystroem => [
            "kernel",
            "gamma",
            "degree",
            "coef0",
            "n_components",
            "landmarks",
            "C",
            "coreset_sample",
            "random_state",
            "n_jobs",
        ]
        .contains(&key),
        Estimator::RandomFourier => {
            ["kernel", "gamma", "n_components", "random_state"].contains(&key)
        }
    }
}

/// The parameters only some of the kernel SVMs have.
fn own_params(estimator: Estimator) -> &'static [&'static str] {
    match estimator {
        Estimator::Svc => &[
            "loss",
            "probability",
            "class_weight",
            "decision_function_shape",
            "break_ties",
            "warm_start",
        ],
        Estimator::NuSvc => &[
            "nu",
            "probability",
            "class_weight",
            "decision_function_shape",
            "break_ties",
        ],
        Estimator::Svr => &["nu", "epsilon", "loss", "warm_start"],
        Estimator::NuSvr => &["nu"],
        Estimator::OneClass => &["nu", "loss"],
        _ => &[],
    }
}

/// The fitted attributes every estimator saves (arrays or JSON scalars).
const SHARED_ATTRIBUTES: [&str; 10] = [
    "_kernel_fit_",
    "support_",
    "support_vectors_",
    "dual_coef_",
    "n_features_in_",
    "_gamma",
    "history_",
    "shape_fit_",
    "n_iter_",
    "convergence_",
];

/// Every fitted attribute `estimator` saves. Nothing else may be set on a loaded estimator.
fn known_attribute(estimator: Estimator, key: &str) -> bool {
    match estimator {
        Estimator::Svc
        | Estimator::Svr
        | Estimator::OneClass
        | Estimator::NuSvc
        | Estimator::NuSvr => {
            SHARED_ATTRIBUTES.contains(&key) || own_attributes(estimator).contains(&key)
        }
        Estimator::CrammerSinger => [
            "_kernel_fit_",
            "classes_",
            "support_",
            "support_vectors_",
            "dual_coef_",
            "n_features_in_",
            "_gamma",
            "n_iter_",
            "convergence_",
            "fit_status_",
            "history_",
        ]
        .contains(&key),
        Estimator::SgdSvc => [
            "classes_",
            "coef_",
            "intercept_",
            "n_iter_",
            "objective_",
            "converged_",
            "eta0_",
            "n_features_in_",
        ]
        .contains(&key),
        Estimator::Nystroem => [
            "components_",
            "component_indices_",
            "normalization_",
            "gamma_",
            "n_features_in_",
        ]
        .contains(&key),
        Estimator::RandomFourier => [
            "random_weights_",
            "random_offset_",
            "gamma_",
            "n_features_in_",
        ]
        .contains(&key),
    }
}

/// The attribute that may be saved sparse (as its `.csr.` parts).
fn sparse_attribute(estimator: Estimator) -> Option<&'static str> {
    match estimator {
        Estimator::Svc
        | Estimator::Svr
        | Estimator::OneClass
        | Estimator::NuSvc
        | Estimator::NuSvr
        | Estimator::CrammerSinger => Some("support_vectors_"),
        Estimator::Nystroem => Some("components_"),
        Estimator::SgdSvc | Estimator::RandomFourier => None,
    }
}

/// The fitted attributes only some of the kernel SVMs save.
fn own_attributes(estimator: Estimator) -> &'static [&'static str] {
    match estimator {
        Estimator::Svc | Estimator::NuSvc => &[
            "classes_",
            "intercept_",
            "n_support_",
            "_alpha",
            "_warm_weights",
            "_warm_setting",
            "_warm_from",
            "fit_status_",
            "probA_",
            "probB_",
            "_label_order",
        ],
        Estimator::Svr | Estimator::NuSvr => &[
            "intercept_",
            "y_mean_",
            "y_scale_",
            "_nu",
            "epsilon_",
            "fit_status_",
            "_warm_coef",
            "_warm_C",
            "_warm_from",
        ],
        Estimator::OneClass => &[
            "_C",
            "_score_constant",
            "radius_",
            "offset_",
            "intercept_",
            "fit_status_",
        ],
        _ => &[],
    }
}

/// Scalar attributes the estimators compute with: a finite number each.
const NUMBERS: [&str; 13] = [
    "_gamma",
    "gamma_",
    "_nu",
    "_C",
    "_score_constant",
    "n_features_in_",
    "fit_status_",
    "y_mean_",
    "y_scale_",
    "epsilon_",
    "radius_",
    "offset_",
    "n_iter_",
];

/// A finite number (not a boolean: JSON keeps them apart).
pub(crate) fn finite(value: &Value) -> Option<f64> {
    value.as_f64().filter(|v| v.is_finite())
}

/// Checks `archive` (see the module docs); `name` prefixes every message.
pub(crate) fn check(archive: &ModelArchive, name: &str) -> Result<()> {
    let estimator = archive.estimator;
    let params = &archive.params;
    let invalid = |why: String| format_error(name, format!("invalid parameters: {why}"));
    if let Some(unknown) = params.keys().find(|k| !known_param(estimator, k)) {
        return Err(invalid(format!(
            "{} has no parameter {unknown:?}",
            estimator.name()
        )));
    }
    check_params(estimator, params).map_err(invalid)?;
    let attribute = |a: &str| known_attribute(estimator, a);
    let unexpected = |attr: &str| {
        format_error(
            name,
            format!("unexpected attribute {attr:?} in the model file"),
        )
    };
    for (key, value) in &archive.scalars {
        if !attribute(key) || archive.arrays.contains_key(key) {
            return Err(unexpected(key));
        }
        if NUMBERS.contains(&key.as_str()) && finite(value).is_none() {
            return Err(format_error(
                name,
                format!("attribute {key:?} must be a finite number, got {value}"),
            ));
        }
    }
    if let Some(warm) = archive.scalars.get("_warm_from") {
        check_warm_from(warm).map_err(|why| format_error(name, why))?;
    }
    if let Some(fitted) = archive.scalars.get("_kernel_fit_") {
        check_fitted_kernel(fitted).map_err(|why| format_error(name, why))?;
    }
    for key in archive.arrays.keys() {
        let attr = key.split_once(".csr.").map_or(key.as_str(), |(a, _)| a);
        if !attribute(attr) {
            return Err(unexpected(attr));
        }
        if let Some((attr, part)) = key.split_once(".csr.")
            && (Some(attr) != sparse_attribute(estimator)
                || !["data", "indices", "indptr", "shape"].contains(&part))
        {
            return Err(format_error(name, format!("unknown sparse part {key:?}")));
        }
    }
    match estimator {
        Estimator::Svc
        | Estimator::Svr
        | Estimator::OneClass
        | Estimator::NuSvc
        | Estimator::NuSvr => check_shapes(archive),
        Estimator::CrammerSinger => check_crammer_singer(archive),
        Estimator::SgdSvc => check_sgd(archive),
        Estimator::Nystroem => check_nystroem(archive),
        Estimator::RandomFourier => check_random_fourier(archive),
    }
    .map_err(|why| format_error(name, why))
}

/// The kernel names a model file may hold: the kernel functions, and `precomputed`.
use crate::kernel::{KERNEL_FUNCTIONS, KERNEL_NAMES as KERNELS};

/// `_warm_from`, what a warm start needs of the fit (`warm_start=True`): null, or
/// `[rows ≥ 0, loss, C > 0]`.
fn check_warm_from(value: &Value) -> std::result::Result<(), String> {
    let well_formed = match value {
        Value::Null => true,
        Value::Array(items) => {
            items.len() == 3
                && items[0].as_u64().is_some()
                && items[1].is_string()
                && finite(&items[2]).is_some_and(|c| c > 0.0)
        }
        _ => false,
    };
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "_warm_from must be null or [rows, loss, C > 0], got {value}"
        ))
    }
}

/// `_kernel_fit_`, the kernel settings of the fit: null (a callable kernel) or
/// `{"kernel": name, "degree": n ≥ 0, "coef0": finite}`.
fn check_fitted_kernel(value: &Value) -> std::result::Result<(), String> {
    let Value::Object(map) = value else {
        return match value {
            Value::Null => Ok(()),
            other => Err(format!("_kernel_fit_ must be an object, got {other}")),
        };
    };
    let known = ["kernel", "degree", "coef0"];
    if map.len() != 3 || !known.iter().all(|k| map.contains_key(*k)) {
        return Err(format!(
            "_kernel_fit_ must hold kernel, degree and coef0, got {value}"
        ));
    }
    let kernel_ok = map["kernel"].as_str().is_some_and(|k| KERNELS.contains(&k));
    let degree_ok = map["degree"]
        .as_i64()
        .is_some_and(|d| (0..=i64::from(u32::MAX)).contains(&d));
    if !kernel_ok || !degree_ok || finite(&map["coef0"]).is_none() {
        return Err(format!("invalid _kernel_fit_ {value}"));
    }
    Ok(())
}

/// The values the model computes with; the rest are the Python estimator's business.
fn check_params(
    estimator: Estimator,
    params: &serde_json::Map<String, Value>,
) -> std::result::Result<(), String> {
    let get = |key: &str| params.get(key).unwrap_or(&Value::Null);
    let kernel = match get("kernel") {
        Value::Null => "rbf",
        Value::String(k) => k.as_str(),
        other => return Err(format!("kernel must be a string, got {other}")),
    };
    let kernels: &[&str] = match estimator {
        Estimator::Svc | Estimator::Svr | Estimator::NuSvc | Estimator::NuSvr => KERNELS,
        // LIBSVM's one-class model (loss "hinge") takes kernel values; the ball needs k(x, x).
        Estimator::OneClass if get("loss") == &Value::String("hinge".into()) => KERNELS,
        Estimator::OneClass | Estimator::Nystroem => KERNEL_FUNCTIONS,
        Estimator::CrammerSinger => &["linear", "rbf", "poly", "sigmoid"],
        Estimator::RandomFourier => &["rbf", "laplacian"],
        Estimator::SgdSvc => &[],
    };
    if estimator == Estimator::SgdSvc {
        if params.contains_key("kernel") {
            return Err("SGDSVC has no parameter \"kernel\"".into());
        }
    } else if !kernels.contains(&kernel) {
        return Err(format!("unknown kernel {kernel:?}"));
    }
    let degree = match get("degree") {
        Value::Null => 3,
        d => d
            .as_i64()
            .filter(|d| (0..=i64::from(u32::MAX)).contains(d))
            .ok_or_else(|| format!("degree must be a non-negative integer, got {d}"))?,
    };
    let coef0 = match get("coef0") {
        Value::Null => 0.0,
        c => finite(c).ok_or_else(|| format!("coef0 must be a finite number, got {c}"))?,
    };
    match get("gamma") {
        Value::Null => {}
        Value::String(g) if g == "scale" || g == "auto" => {}
        g => {
            let value = finite(g)
                .filter(|g| *g >= 0.0)
                .ok_or_else(|| format!("gamma must be 'scale', 'auto' or a number ≥ 0, got {g}"))?;
            if value > 0.0 {
                Kernel::from_name(kernel, value, degree, coef0).map_err(|e| e.to_string())?;
            }
        }
    }
    let positive = |key: &str, optional: bool| -> std::result::Result<(), String> {
        match get(key) {
            Value::Null if optional => Ok(()),
            v if finite(v).is_some_and(|v| v > 0.0) => Ok(()),
            v => Err(format!("{key} must be a positive finite number, got {v}")),
        }
    };
    match estimator {
        Estimator::Svc | Estimator::SgdSvc => {
            positive("C", true)?;
            match get("loss") {
                Value::Null => {}
                Value::String(l) if l == "hinge" || l == "squared_hinge" => {}
                l => return Err(format!("unknown loss {l}")),
            }
        }
        Estimator::NuSvc | Estimator::NuSvr => {
            positive("C", true)?;
            positive("nu", false)?;
            if finite(get("nu")).is_some_and(|nu| nu > 1.0) {
                return Err(format!("nu must be in (0, 1], got {}", get("nu")));
            }
        }
        Estimator::Svr => {
            positive("C", true)?;
            if get("nu") != &Value::String("auto".into()) {
                positive("nu", true)?;
            }
            match get("epsilon") {
                Value::Null => {}
                e if finite(e).is_some_and(|e| e >= 0.0) => {}
                e => return Err(format!("epsilon must be a finite number ≥ 0, got {e}")),
            }
        }
        Estimator::OneClass => {
            positive("C", true)?;
            positive("nu", true)?;
            // LIBSVM's model (loss "hinge") takes ν = 1; the ball needs ν < 1.
            let limit = if get("loss") == &Value::String("hinge".into()) {
                1.0
            } else {
                1.0 - f64::EPSILON
            };
            if finite(get("nu")).is_some_and(|nu| nu > limit) {
                return Err(format!("nu must be in (0, 1], got {}", get("nu")));
            }
        }
        Estimator::CrammerSinger | Estimator::Nystroem => positive("C", true)?,
        Estimator::RandomFourier => {}
    }
    if matches!(estimator, Estimator::Nystroem | Estimator::RandomFourier) {
        match get("n_components") {
            Value::Null => {}
            n if n.as_u64().is_some_and(|n| n >= 1) => {}
            n => return Err(format!("n_components must be a positive integer, got {n}")),
        }
    }
    for key in ["tol", "cache_size"] {
        if !matches!(get(key), Value::Null) && estimator != Estimator::SgdSvc {
            positive(key, true)?;
        }
    }
    for (key, parse) in [
        (
            "algorithm",
            (|s: &str| s.parse::<crate::solver::Algorithm>().is_ok()) as fn(&str) -> bool,
        ),
        ("stopping", |s| s.parse::<crate::solver::Stopping>().is_ok()),
        ("init", |s| s.parse::<crate::solver::Init>().is_ok()),
    ] {
        match get(key) {
            Value::Null => {}
            Value::String(s) if parse(s) => {}
            v => return Err(format!("unknown {key} {v}")),
        }
    }
    Ok(())
}

/// The integers of an integer-typed array.
fn integers(array: &NpyArray, what: &str) -> std::result::Result<Vec<i64>, String> {
    array
        .to_i64()
        .ok_or_else(|| format!("{what} must hold integers, got {}", array.dtype().descr()))
}

/// The numbers of a numeric array, which must be finite.
fn finite_numbers(array: &NpyArray, what: &str) -> std::result::Result<Vec<f64>, String> {
    let values = array
        .to_f64()
        .ok_or_else(|| format!("{what} must hold numbers, got {}", array.dtype().descr()))?;
    if values.iter().any(|v| !v.is_finite()) {
        return Err("inconsistent model: non-finite coefficients".into());
    }
    Ok(values)
}

/// CSR arrays (indptr, indices, data) and the shape.
pub(crate) type CsrParts = (Vec<usize>, Vec<u32>, Vec<f64>, [usize; 2]);

/// The CSR support vectors from their parts, checked like any CSR input.
pub(crate) fn csr_parts(
    archive: &ModelArchive,
    attribute: &str,
) -> std::result::Result<Option<CsrParts>, String> {
    let part = |p: &str| archive.arrays.get(&format!("{attribute}.csr.{p}"));
    let parts = [part("data"), part("indices"), part("indptr"), part("shape")];
    if parts.iter().all(Option::is_none) {
        return Ok(None);
    }
    let bad = |why: String| format!("sparse attribute '{attribute}' is corrupt: {why}");
    let [Some(data), Some(indices), Some(indptr), Some(shape)] = parts else {
        return Err(format!(
            "sparse attribute '{attribute}' lacks one of its parts"
        ));
    };
    let shape = integers(shape, "shape").map_err(bad)?;
    let [n_rows, n_cols] = shape[..] else {
        return Err(bad(format!("shape {shape:?}")));
    };
    let (Ok(n_rows), Ok(n_cols)) = (usize::try_from(n_rows), usize::try_from(n_cols)) else {
        return Err(bad(format!("shape {shape:?}")));
    };
    if [data, indices, indptr].iter().any(|a| a.shape().len() != 1) {
        return Err(bad("parts are not one-dimensional".into()));
    }
    if !matches!(data.dtype(), super::DType::Float(_)) {
        return Err(bad("wrong dtypes".into()));
    }
    let indptr: Vec<usize> = integers(indptr, "indptr")
        .map_err(bad)?
        .into_iter()
        .map(usize::try_from)
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad("indptr has a negative entry".into()))?;
    let indices: Vec<u32> = integers(indices, "indices")
        .map_err(bad)?
        .into_iter()
        .map(u32::try_from)
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad(format!("a column index is outside [0, {n_cols})")))?;
    let data = data.to_f64().unwrap_or_default();
    if indptr.len() != n_rows + 1 {
        return Err(bad(format!(
            "indptr has {} entries for {n_rows} rows",
            indptr.len()
        )));
    }
    CsrView::new(&indptr, &indices, &data, n_cols).map_err(|e| bad(e.to_string()))?;
    Ok(Some((indptr, indices, data, [n_rows, n_cols])))
}

/// The fitted arrays agree with each other (LIBSVM's layout).
fn check_shapes(archive: &ModelArchive) -> std::result::Result<(), String> {
    let fail = |why: String| format!("inconsistent model: {why}");
    let arrays = &archive.arrays;
    let (Some(dual), Some(support)) = (arrays.get("dual_coef_"), arrays.get("support_")) else {
        return Err(fail("dual_coef_ or support_ is missing".into()));
    };
    let n_sv = support.len();
    if dual.shape().len() != 2 || support.shape().len() != 1 || dual.shape()[1] != n_sv {
        return Err(fail(format!(
            "dual_coef_ {:?} against {n_sv} support vectors",
            dual.shape()
        )));
    }
    let support_values = integers(support, "support_")?;
    if support_values.iter().any(|&s| s < 0) {
        return Err(fail("a negative index in support_".into()));
    }
    finite_numbers(dual, "dual_coef_")?;
    let intercept = match arrays.get("intercept_") {
        Some(i) if i.shape().len() != 1 => {
            return Err(fail(format!("intercept_ of shape {:?}", i.shape())));
        }
        Some(i) => Some(finite_numbers(i, "intercept_")?),
        None => None,
    };
    let precomputed = archive.params.get("kernel") == Some(&Value::String("precomputed".into()));
    let n_features = archive.scalars.get("n_features_in_").and_then(finite);
    let vectors_shape = matrix_shape(archive, "support_vectors_")?;
    if let Some([rows, cols]) = vectors_shape
        && !precomputed
        && (rows != n_sv || n_features.is_some_and(|n| n != cols as f64))
    {
        return Err(fail(format!(
            "support_vectors_ ({rows}, {cols}) against {n_sv} support vectors"
        )));
    }
    if !precomputed && vectors_shape.is_none() {
        return Err(fail("support_vectors_ is missing".into()));
    }
    let n_pairs = match (arrays.get("n_support_"), arrays.get("classes_")) {
        (Some(n_support), Some(classes)) => {
            let counts = integers(n_support, "n_support_")?;
            let k = classes.len();
            let total = counts.iter().try_fold(0i64, |acc, &n| acc.checked_add(n));
            if classes.shape().len() != 1
                || k < 2
                || counts.len() != k
                || counts.iter().any(|&n| n < 0)
                || total != Some(n_sv as i64)
            {
                return Err(fail(format!(
                    "n_support_ {counts:?} against {k} classes and {n_sv} support vectors"
                )));
            }
            let n_pairs = k * (k - 1) / 2;
            if dual.shape()[0] != k - 1 || intercept.as_ref().map_or(0, Vec::len) != n_pairs {
                return Err(fail(format!(
                    "dual_coef_ {:?} or intercept_ of {} values against {k} classes",
                    dual.shape(),
                    intercept.as_ref().map_or(0, Vec::len)
                )));
            }
            if let Some(order) = arrays.get("_label_order") {
                let order = order.to_i64().unwrap_or_default();
                let mut seen = vec![false; k];
                let valid = order.len() == k
                    && order.iter().all(|&c| {
                        usize::try_from(c)
                            .is_ok_and(|c| c < k && !std::mem::replace(&mut seen[c], true))
                    });
                if !valid {
                    return Err(fail(format!(
                        "_label_order {order:?} is not an order of {k} classes"
                    )));
                }
            }
            n_pairs
        }
        (None, None) if !archive.estimator.is_classifier() => {
            if dual.shape()[0] != 1
                || (matches!(archive.estimator, Estimator::Svr | Estimator::NuSvr)
                    && intercept.as_ref().map(Vec::len) != Some(1))
            {
                return Err(fail(format!(
                    "dual_coef_ {:?} or intercept_ of {} values for a single model",
                    dual.shape(),
                    intercept.as_ref().map_or(0, Vec::len)
                )));
            }
            1
        }
        _ => return Err(fail("classes_ or n_support_ is missing".into())),
    };
    for key in ["probA_", "probB_"] {
        if let Some(p) = arrays.get(key) {
            let values = finite_numbers(p, key)?;
            if p.shape().len() != 1 || !(values.is_empty() || values.len() == n_pairs) {
                return Err(fail(format!("{key} of shape {:?}", p.shape())));
            }
        }
    }
    Ok(())
}

/// The shape of a 2-D attribute saved dense or sparse (`None`: absent); dense values must be
/// numbers, sparse parts valid CSR.
fn matrix_shape(
    archive: &ModelArchive,
    attribute: &str,
) -> std::result::Result<Option<[usize; 2]>, String> {
    let fail = |why: String| format!("inconsistent model: {why}");
    Ok(
        match (
            archive.arrays.get(attribute),
            csr_parts(archive, attribute)?,
        ) {
            (Some(_), Some(_)) => {
                return Err(fail(format!("{attribute} is both dense and sparse")));
            }
            (Some(v), None) => {
                if v.shape().len() != 2 || !v.is_numeric() {
                    return Err(fail(format!("{attribute} of shape {:?}", v.shape())));
                }
                Some([v.shape()[0], v.shape()[1]])
            }
            (None, Some((.., shape))) => Some(shape),
            (None, None) => None,
        },
    )
}

/// A required array attribute.
fn required<'a>(archive: &'a ModelArchive, key: &str) -> std::result::Result<&'a NpyArray, String> {
    archive
        .arrays
        .get(key)
        .ok_or_else(|| format!("inconsistent model: {key} is missing"))
}

/// `n_features_in_`, which every model needs: a non-negative integer.
fn n_features_in(archive: &ModelArchive) -> std::result::Result<usize, String> {
    archive
        .scalars
        .get("n_features_in_")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| "inconsistent model: n_features_in_ is missing or not a count".into())
}

/// `classes_`: one-dimensional, at least two.
fn n_classes(archive: &ModelArchive) -> std::result::Result<usize, String> {
    let classes = required(archive, "classes_")?;
    if classes.shape().len() != 1 || classes.len() < 2 {
        return Err(format!(
            "inconsistent model: classes_ of shape {:?}",
            classes.shape()
        ));
    }
    Ok(classes.len())
}

/// A 2-D numeric attribute of finite values with `shape` (`None`: any size on that axis).
fn finite_matrix(
    archive: &ModelArchive,
    key: &str,
    shape: [Option<usize>; 2],
) -> std::result::Result<[usize; 2], String> {
    let array = required(archive, key)?;
    let got = array.shape();
    if got.len() != 2
        || shape
            .iter()
            .zip(got)
            .any(|(want, &g)| want.is_some_and(|w| w != g))
    {
        return Err(format!(
            "inconsistent model: {key} of shape {got:?}, expected {}",
            shape_text(&shape)
        ));
    }
    finite_numbers(array, key)?;
    Ok([got[0], got[1]])
}

/// A 1-D numeric attribute of `len` finite values.
fn finite_vector(archive: &ModelArchive, key: &str, len: usize) -> std::result::Result<(), String> {
    let array = required(archive, key)?;
    if array.shape() != [len] {
        return Err(format!(
            "inconsistent model: {key} of shape {:?}, expected ({len},)",
            array.shape()
        ));
    }
    finite_numbers(array, key).map(drop)
}

fn shape_text(shape: &[Option<usize>]) -> String {
    let axes: Vec<String> = shape
        .iter()
        .map(|a| a.map_or("any".into(), |a| a.to_string()))
        .collect();
    format!("({})", axes.join(", "))
}

/// `CrammerSingerSVC`: one row of `dual_coef_` per class, one column per support vector.
fn check_crammer_singer(archive: &ModelArchive) -> std::result::Result<(), String> {
    let k = n_classes(archive)?;
    let d = n_features_in(archive)?;
    let support = required(archive, "support_")?;
    if support.shape().len() != 1 || integers(support, "support_")?.iter().any(|&s| s < 0) {
        return Err("inconsistent model: support_ is not a list of row indices".into());
    }
    let n_sv = support.len();
    finite_matrix(archive, "dual_coef_", [Some(k), Some(n_sv)])?;
    match matrix_shape(archive, "support_vectors_")? {
        Some([rows, cols]) if rows == n_sv && cols == d => Ok(()),
        Some([rows, cols]) => Err(format!(
            "inconsistent model: support_vectors_ ({rows}, {cols}) against {n_sv} support vectors of {d} features"
        )),
        None => Err("inconsistent model: support_vectors_ is missing".into()),
    }
}

/// `SGDSVC`: one weight row and intercept per problem (one for two classes, else one per
/// class).
fn check_sgd(archive: &ModelArchive) -> std::result::Result<(), String> {
    let k = n_classes(archive)?;
    let d = n_features_in(archive)?;
    let problems = if k == 2 { 1 } else { k };
    finite_matrix(archive, "coef_", [Some(problems), Some(d)])?;
    finite_vector(archive, "intercept_", problems)
}

/// `Nystroem`: m landmarks of the data's width and the m × m normalisation.
fn check_nystroem(archive: &ModelArchive) -> std::result::Result<(), String> {
    let d = n_features_in(archive)?;
    let [m, cols] = matrix_shape(archive, "components_")?
        .ok_or("inconsistent model: components_ is missing")?;
    if cols != d {
        return Err(format!(
            "inconsistent model: components_ ({m}, {cols}) against {d} features"
        ));
    }
    finite_matrix(archive, "normalization_", [Some(m), Some(m)])?;
    if let Some(indices) = archive.arrays.get("component_indices_")
        && (indices.shape() != [m]
            || integers(indices, "component_indices_")?
                .iter()
                .any(|&i| i < 0))
    {
        return Err(
            "inconsistent model: component_indices_ is not one row index per landmark".into(),
        );
    }
    if archive.scalars.get("gamma_").and_then(finite).is_none() {
        return Err("inconsistent model: gamma_ is missing".into());
    }
    Ok(())
}

/// `RandomFourierFeatures`: W (features × D) and b (D), D = `n_components`.
fn check_random_fourier(archive: &ModelArchive) -> std::result::Result<(), String> {
    let d = n_features_in(archive)?;
    let n_components = archive
        .params
        .get("n_components")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or("inconsistent model: the n_components parameter is missing")?;
    finite_matrix(archive, "random_weights_", [Some(d), Some(n_components)])?;
    finite_vector(archive, "random_offset_", n_components)?;
    if archive.scalars.get("gamma_").and_then(finite).is_none() {
        return Err("inconsistent model: gamma_ is missing".into());
    }
    Ok(())
}
