//! The model file for Python: `fwsvm.persistence` maps estimator attributes to and from
//! these two functions; the format itself (header, archive, every check) is
//! [`crate::model_file`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use crate::model_file::{DType, Estimator, ModelArchive, NpyArray};

/// A Python value (JSON types, tuples as lists) as JSON; non-finite floats become null.
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

/// Reads and checks a model file. Returns `(estimator, params, scalars, arrays)` where each
/// array is `(descr, shape, fortran_order, data)` for `numpy.frombuffer`; sparse attributes
/// come as their `name.csr.{data,indices,indptr,shape}` parts.
#[pyfunction]
pub(crate) fn read_model_file<'py>(
    py: Python<'py>,
    path: PathBuf,
) -> PyResult<Bound<'py, PyTuple>> {
    let archive = py.detach(|| ModelArchive::read(&path))?;
    let arrays = PyDict::new(py);
    for (key, array) in &archive.arrays {
        let entry = (
            array.dtype().descr(),
            PyTuple::new(py, array.shape())?,
            array.fortran_order(),
            PyBytes::new(py, array.data()),
        );
        arrays.set_item(key, entry)?;
    }
    PyTuple::new(
        py,
        [
            PyString::new(py, archive.estimator.name()).into_any(),
            to_py_dict(py, &archive.params)?.into_any(),
            to_py_dict(py, &archive.scalars)?.into_any(),
            arrays.into_any(),
        ],
    )
}

/// Writes a model file after the same checks as reading. `arrays` maps names to
/// `(descr, shape, data)` of C-ordered arrays.
#[pyfunction]
#[pyo3(signature = (path, estimator, params, scalars, arrays, fwsvm_version))]
pub(crate) fn write_model_file(
    py: Python<'_>,
    path: PathBuf,
    estimator: &str,
    params: &Bound<'_, PyDict>,
    scalars: &Bound<'_, PyDict>,
    arrays: &Bound<'_, PyDict>,
    fwsvm_version: String,
) -> PyResult<()> {
    let estimator = Estimator::from_name(estimator)
        .ok_or_else(|| PyValueError::new_err(format!("unknown estimator class {estimator:?}")))?;
    let mut decoded = BTreeMap::new();
    for (key, value) in arrays.iter() {
        let (descr, shape, data): (String, Vec<usize>, Vec<u8>) = value.extract()?;
        let dtype = DType::parse(&descr).ok_or_else(|| {
            PyValueError::new_err(format!(
                "attribute {key} has dtype {descr} and cannot be saved; use pickle"
            ))
        })?;
        let array = NpyArray::from_raw(dtype, shape, false, data).map_err(PyValueError::new_err)?;
        decoded.insert(key.extract::<String>()?, array);
    }
    let archive = ModelArchive {
        estimator,
        fwsvm_version,
        params: to_json_map(params)?,
        scalars: to_json_map(scalars)?,
        arrays: decoded,
    };
    py.detach(|| archive.write(&path))?;
    Ok(())
}
