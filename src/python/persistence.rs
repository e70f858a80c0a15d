//! The model file for Python: an estimator's fitted state (as it pickles) to and from the
//! archive's arrays and JSON, and the estimator rebuilt from it; the format itself (header,
//! archive, every check) is [`crate::model_file`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::{Map, Value};

use super::ModelFormatError;
use crate::model_file::{DType, Estimator, ModelArchive, NpyArray};

/// A Python value (JSON types, tuples as lists, NumPy arrays and scalars as their `tolist()`)
/// as JSON; non-finite floats become null.
fn to_json(ob: &Bound<'_, PyAny>) -> PyResult<Value> {
    if ob.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = ob.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if ob.is_instance_of::<PyInt>() {
        if let Ok(v) = ob.extract::<i64>() {
            return Ok(v.into());
        }
        if let Ok(v) = ob.extract::<u64>() {
            return Ok(v.into());
        }
        return Ok(ob.extract::<f64>()?.into());
    }
    if let Ok(f) = ob.cast::<PyFloat>() {
        // serde_json writes non-finite floats as null.
        return Ok(f.value().into());
    }
    if let Ok(s) = ob.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(d) = ob.cast::<PyDict>() {
        return Ok(Value::Object(to_json_map(d)?));
    }
    if ob.is_instance_of::<PyList>() || ob.is_instance_of::<PyTuple>() {
        return ob
            .try_iter()?
            .map(|item| to_json(&item?))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    let np = ob.py().import("numpy")?;
    if ob.is_instance(&np.getattr("ndarray")?)? || ob.is_instance(&np.getattr("generic")?)? {
        return to_json(&ob.call_method0("tolist")?);
    }
    Err(PyValueError::new_err(format!(
        "a {} cannot be saved in the model file's metadata",
        ob.get_type().name()?
    )))
}

fn to_json_map(d: &Bound<'_, PyDict>) -> PyResult<Map<String, Value>> {
    d.iter()
        .map(|(k, v)| Ok((k.str()?.to_str()?.to_owned(), to_json(&v)?)))
        .collect()
}

/// JSON as Python objects.
fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => to_py_dict(py, map)?.into_any(),
    })
}

fn to_py_dict<'py>(py: Python<'py>, map: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in map {
        d.set_item(k, to_py(py, v)?)?;
    }
    Ok(d)
}

/// The loss of the L2 models, for files written before SVR and OneClassSVM defaulted to
/// LIBSVM's (their files have no `loss`).
const L2_BEFORE_LOSS: [(&str, &str); 2] = [
    ("SVR", "squared_epsilon_insensitive"),
    ("OneClassSVM", "squared_hinge"),
];

/// Reads and checks a model file. Returns `(estimator, params, state)`: the class name, its
/// parameters and the fitted state as the estimator's `__setstate__` takes it (arrays as NumPy
/// arrays, sparse attributes as `scipy.sparse.csr_matrix`).
#[pyfunction]
pub(crate) fn read_model_file<'py>(
    py: Python<'py>,
    path: PathBuf,
) -> PyResult<(String, Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let archive = py.detach(|| ModelArchive::read(&path))?;
    let estimator = archive.estimator.name().to_owned();
    let params = to_py_dict(py, &archive.params)?;
    let legacy = L2_BEFORE_LOSS.iter().find(|(e, _)| *e == estimator);
    if let Some((_, loss)) = legacy
        && !params.contains("loss")?
    {
        params.set_item("loss", loss)?;
    }
    let state = to_py_dict(py, &archive.scalars)?;
    let np = py.import("numpy")?;
    let mut sparse: BTreeMap<&str, Bound<'py, PyDict>> = BTreeMap::new();
    for (key, array) in &archive.arrays {
        let dtype = np.getattr("dtype")?.call1((array.dtype().descr(),))?;
        let order = if array.fortran_order() { "F" } else { "C" };
        let kwargs = PyDict::new(py);
        kwargs.set_item("order", order)?;
        let value = np
            .getattr("frombuffer")?
            .call1((PyBytes::new(py, array.data()), dtype))?
            .call_method(
                "reshape",
                (PyTuple::new(py, array.shape())?,),
                Some(&kwargs),
            )?
            .call_method0("copy")?;
        match key.split_once(".csr.") {
            Some((attr, part)) => match sparse.get(attr) {
                Some(parts) => parts.set_item(part, value)?,
                None => {
                    let parts = PyDict::new(py);
                    parts.set_item(part, value)?;
                    sparse.insert(attr, parts);
                }
            },
            None => state.set_item(key, value)?,
        }
    }
    let csr_matrix = py.import("scipy.sparse")?.getattr("csr_matrix")?;
    for (attr, parts) in sparse {
        // Rust checked the CSR invariants (scipy's routines trust them).
        let part = |name: &str| {
            parts.get_item(name)?.ok_or_else(|| {
                ModelFormatError::new_err(format!("{}: {attr} has no CSR {name}", path.display()))
            })
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item(
            "shape",
            part("shape")?
                .call_method0("tolist")?
                .cast_into::<PyList>()?
                .to_tuple(),
        )?;
        let matrix = csr_matrix.call(
            ((part("data")?, part("indices")?, part("indptr")?),),
            Some(&kwargs),
        )?;
        state.set_item(attr, matrix)?;
    }
    Ok((estimator, params, state))
}

/// `err` as a [`ModelFormatError`] saying `what`, when it is a TypeError or ValueError.
fn format_error(py: Python<'_>, err: PyErr, name: &str, what: &str) -> PyErr {
    if !(err.is_instance_of::<PyTypeError>(py) || err.is_instance_of::<PyValueError>(py)) {
        return err;
    }
    let message = err
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_default();
    let wrapped = ModelFormatError::new_err(format!("{name}: {what}: {message}"));
    wrapped.set_cause(py, Some(err));
    wrapped
}

/// A `cls` estimator from the model file at `path` (`parts`: what [`read_model_file`] returned,
/// if already read); the file must hold `cls` or one of its base classes.
#[pyfunction]
#[pyo3(signature = (cls, path, parts=None))]
pub(crate) fn restore_model<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    path: PathBuf,
    parts: Option<(String, Bound<'py, PyDict>, Bound<'py, PyDict>)>,
) -> PyResult<Bound<'py, PyAny>> {
    let name = path.display().to_string();
    let (estimator, params, state) = match parts {
        Some(parts) => parts,
        None => read_model_file(py, path)?,
    };
    let mut matches = cls.getattr("__mro__")?.try_iter()?;
    let class = loop {
        match matches.next().transpose()? {
            Some(c) if c.getattr("__name__")?.extract::<String>()? == estimator => break c,
            Some(_) => continue,
            None => {
                return Err(ModelFormatError::new_err(format!(
                    "{name} holds a {estimator}, not a {}",
                    cls.name()?
                )));
            }
        }
    };
    let est = class
        .call((), Some(&params))
        // scikit-learn's constraints of the Python class, on top of the checks in Rust.
        .and_then(|est| est.call_method0("_validate_params").map(|_| est))
        .map_err(|e| format_error(py, e, &name, "invalid parameters"))?;
    // As unpickling restores it (an estimator holding a Rust model rebuilds it from its parts).
    est.call_method1("__setstate__", (state,))
        .map_err(|e| format_error(py, e, &name, "inconsistent model"))?;
    Ok(est)
}

/// An array attribute as the archive stores it (C order).
fn array_entry(name: &str, value: &Bound<'_, PyAny>) -> PyResult<NpyArray> {
    let dtype = value.getattr("dtype")?;
    if dtype.getattr("kind")?.extract::<String>()? == "O" {
        return Err(PyValueError::new_err(format!(
            "attribute {name} has object dtype and cannot be saved; use pickle"
        )));
    }
    let value = match value.getattr("ndim")?.extract::<usize>()? {
        0 => value.clone(),
        _ => value
            .py()
            .import("numpy")?
            .call_method1("ascontiguousarray", (value,))?,
    };
    let descr: String = dtype.getattr("str")?.extract()?;
    let dtype = DType::parse(&descr).ok_or_else(|| {
        PyValueError::new_err(format!(
            "attribute {name} has dtype {descr} and cannot be saved; use pickle"
        ))
    })?;
    let shape: Vec<usize> = value.getattr("shape")?.extract()?;
    let data: Vec<u8> = value.call_method0("tobytes")?.extract()?;
    NpyArray::from_raw(dtype, shape, false, data).map_err(PyValueError::new_err)
}

/// Writes a fitted estimator to `path`: its parameters and its fitted state as it pickles (a
/// Rust model handle as its parts), arrays as arrays (sparse ones as their CSR parts) and the
/// rest as JSON, after the same checks as reading.
#[pyfunction]
pub(crate) fn write_model_file(
    py: Python<'_>,
    path: PathBuf,
    estimator: &Bound<'_, PyAny>,
    fwsvm_version: String,
) -> PyResult<()> {
    let class = estimator.get_type().name()?.to_string();
    if estimator
        .getattr_opt("kernel")?
        .is_some_and(|k| k.is_callable())
    {
        return Err(PyValueError::new_err(
            "models with a callable kernel cannot be saved (the callable is code); use pickle",
        ));
    }
    if !estimator.hasattr("n_features_in_")? {
        return Err(PyValueError::new_err(format!(
            "this {class} is not fitted yet"
        )));
    }
    let kind = Estimator::from_name(&class)
        .ok_or_else(|| PyValueError::new_err(format!("unknown estimator class {class:?}")))?;
    let params = estimator
        .call_method0("get_params")?
        .cast_into::<PyDict>()?;
    let state = PyDict::new(py);
    state.update(
        estimator
            .call_method0("__getstate__")?
            .cast::<pyo3::types::PyMapping>()?,
    )?;
    let sp = py.import("scipy.sparse")?;
    let ndarray = py.import("numpy")?.getattr("ndarray")?;
    let (mut arrays, scalars) = (BTreeMap::new(), PyDict::new(py));
    for (key, value) in state.iter() {
        let name: String = key.extract()?;
        if !(name.ends_with('_') || name.starts_with('_'))
            || name == "_sklearn_version"
            || params.contains(&key)?
        {
            continue;
        }
        if sp.call_method1("issparse", (&value,))?.is_truthy()? {
            let csr = sp.getattr("csr_matrix")?.call1((&value,))?;
            for part in ["data", "indices", "indptr"] {
                arrays.insert(
                    format!("{name}.csr.{part}"),
                    array_entry(&name, &csr.getattr(part)?)?,
                );
            }
            let shape: Vec<i64> = csr.getattr("shape")?.extract()?;
            arrays.insert(
                format!("{name}.csr.shape"),
                NpyArray::from_i64(vec![2], &shape),
            );
        } else if value.is_instance(&ndarray)? {
            let entry = array_entry(&name, &value)?;
            arrays.insert(name, entry);
        } else {
            scalars.set_item(key, value)?;
        }
    }
    let archive = ModelArchive {
        estimator: kind,
        fwsvm_version,
        params: to_json_map(&params)?,
        scalars: to_json_map(&scalars)?,
        arrays,
    };
    py.detach(|| archive.write(&path))?;
    Ok(())
}
