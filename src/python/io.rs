//! LIBSVM/svmlight reading and writing for `fwsvm.load_svmlight_file(s)` and
//! `fwsvm.dump_svmlight_file`: the options are checked, the sources opened and the CSR matrices
//! built here (scikit-learn's messages), the parsing and writing are [`crate::data::libsvm`].

use std::path::PathBuf;

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PySlice, PyString, PyTuple};

use super::convert::FeaturesArg;
use crate::data::libsvm::{
    DEFAULT_MAX_LINE_BYTES, LibsvmData, ReadOptions, Source, Targets, TargetsRef, ZeroBased,
    read_libsvm_sources_until, write_libsvm,
};
use crate::error::FwsvmError;
use crate::parallel::with_threads;

/// A path or in-memory bytes.
enum SourceArg {
    Bytes(PyBackedBytes),
    Path(PathBuf),
}

/// `fwsvm.load_svmlight_files`'s options, as one dict, checked by [`ReadArgs::checked`].
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct ReadArgs<'py> {
    n_features: Bound<'py, PyAny>,
    dtype: Bound<'py, PyAny>,
    multilabel: Bound<'py, PyAny>,
    zero_based: Bound<'py, PyAny>,
    query_id: Bound<'py, PyAny>,
    offset: Bound<'py, PyAny>,
    length: Bound<'py, PyAny>,
    #[pyo3(default, from_py_with = super::convert::n_jobs)]
    n_threads: Option<usize>,
    max_line_length: Bound<'py, PyAny>,
}

/// `value` as an integer when it is a Python or NumPy integer (not a bool).
fn integer(value: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    let np_integer = value.py().import("numpy")?.getattr("integer")?;
    if value.is_instance_of::<PyBool>()
        || !(value.is_instance_of::<PyInt>() || value.is_instance(&np_integer)?)
    {
        return Ok(None);
    }
    Ok(value.extract::<i64>().ok())
}

/// `value` as an integer of at least `min`, or a ValueError `"{name} must be {what}, got {value!r}"`.
fn integer_at_least(value: &Bound<'_, PyAny>, min: i64, name: &str, what: &str) -> PyResult<i64> {
    match integer(value)? {
        Some(v) if v >= min => Ok(v),
        _ => Err(PyValueError::new_err(format!(
            "{name} must be {what}, got {}",
            value.repr()?
        ))),
    }
}

impl ReadArgs<'_> {
    /// The reader's options, the NumPy dtype of the values and whether to return `qid`.
    fn checked(&self) -> PyResult<(ReadOptions, Py<PyAny>, bool)> {
        let n_features = match self.n_features.is_none() {
            true => None,
            false => Some(integer_at_least(
                &self.n_features,
                1,
                "n_features",
                "a positive integer",
            )?),
        };
        let offset = integer_at_least(
            &self.offset,
            0,
            "offset",
            "a non-negative integer (a byte position)",
        )?;
        let length = integer_at_least(
            &self.length,
            i64::MIN,
            "length",
            "an integer (a byte count; -1 or 0: to the end)",
        )?;
        let max_line_length = match self.max_line_length.is_none() {
            true => None,
            false => Some(integer_at_least(
                &self.max_line_length,
                1,
                "max_line_length",
                "a positive integer or None",
            )?),
        };
        let ranged = offset != 0 || length > 0;
        if ranged && n_features.is_none() {
            return Err(PyValueError::new_err(
                "n_features is required when offset or length is specified.",
            ));
        }
        let py = self.dtype.py();
        let dtype = py
            .import("numpy")?
            .getattr("dtype")?
            .call1((&self.dtype,))?;
        if dtype.getattr("kind")?.extract::<String>()? != "f" {
            return Err(PyValueError::new_err(format!(
                "dtype must be a floating point type, got {}",
                dtype.str()?
            )));
        }
        let zero_based = match self.zero_based.cast::<PyString>() {
            // Byte ranges may not see the whole file, so "auto" cannot be decided (scikit-learn).
            Ok(s) if s.to_str()? == "auto" && ranged => ZeroBased::Yes,
            Ok(s) if s.to_str()? == "auto" => ZeroBased::Auto,
            Ok(_) => {
                return Err(PyValueError::new_err(format!(
                    "zero_based must be True, False or 'auto', got {}",
                    self.zero_based.repr()?
                )));
            }
            Err(_) if self.zero_based.is_truthy()? => ZeroBased::Yes,
            Err(_) => ZeroBased::No,
        };
        let options = ReadOptions {
            zero_based,
            n_features: n_features.map(|n| n as usize),
            multilabel: self.multilabel.is_truthy()?,
            offset: offset as u64,
            length: (length > 0).then_some(length as u64),
            max_line_bytes: max_line_length.map_or(DEFAULT_MAX_LINE_BYTES, |n| n as usize),
        };
        Ok((options, dtype.unbind(), self.query_id.is_truthy()?))
    }
}

/// A source as `load_svmlight_files` takes it: a path, a file descriptor or a binary file
/// object (read here, on the caller's thread), with its name for messages.
fn source(f: &Bound<'_, PyAny>) -> PyResult<(SourceArg, String)> {
    let py = f.py();
    let os = py.import("os")?;
    if f.is_instance_of::<PyString>() || f.is_instance(&os.getattr("PathLike")?)? {
        let name = os.call_method1("fspath", (f,))?.str()?.to_string();
        return Ok((SourceArg::Path(f.extract()?), name));
    }
    if let Some(fd) = integer(f)? {
        let kwargs = PyDict::new(py);
        kwargs.set_item("closefd", false)?;
        let file = py
            .import("builtins")?
            .getattr("open")?
            .call((fd, "rb"), Some(&kwargs))?;
        let data = file.call_method0("read");
        file.call_method0("close")?;
        return Ok((SourceArg::Bytes(data?.extract()?), format!("<fd {fd}>")));
    }
    if f.hasattr("read")? {
        let data = f.call_method0("read")?;
        if data.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "file objects must be opened in binary mode ('rb')",
            ));
        }
        let data = py.import("builtins")?.getattr("bytes")?.call1((data,))?;
        let name = match f.getattr_opt("name")? {
            Some(name) => name.str()?.to_string(),
            None => "<file object>".to_owned(),
        };
        return Ok((SourceArg::Bytes(data.extract()?), name));
    }
    Err(PyTypeError::new_err(format!(
        "expected a path, a file descriptor or a binary file object, got {}",
        f.get_type().name()?
    )))
}

/// `fwsvm.load_svmlight_files` up to the parse: the checked options and the sources, opened on
/// the caller's thread; [`SvmlightReader::load`] parses them (on a worker, interruptibly).
#[pyclass(module = "fwsvm._core", frozen)]
pub(crate) struct SvmlightReader {
    sources: Vec<(SourceArg, String)>,
    options: ReadOptions,
    dtype: Py<PyAny>,
    query_id: bool,
    n_threads: Option<usize>,
}

#[pymethods]
impl SvmlightReader {
    #[new]
    fn new(files: &Bound<'_, PyAny>, options: ReadArgs<'_>) -> PyResult<Self> {
        let (read_options, dtype, query_id) = options.checked()?;
        let one = files.is_instance_of::<PyString>()
            || files.is_instance_of::<PyInt>()
            || files.is_instance(&files.py().import("os")?.getattr("PathLike")?)?
            || files.hasattr("read")?;
        let sources = match one {
            true => vec![source(files)?],
            false => files
                .try_iter()?
                .map(|f| source(&f?))
                .collect::<PyResult<_>>()?,
        };
        Ok(SvmlightReader {
            sources,
            options: read_options,
            dtype,
            query_id,
            n_threads: options.n_threads,
        })
    }

    /// Parses the sources: `[X1, y1, X2, y2, ...]` (with `qid` after each `y` when asked), each
    /// `X` a `scipy.sparse.csr_matrix`.
    fn load<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let srcs: Vec<Source<'_>> = self
            .sources
            .iter()
            .map(|(s, name)| match s {
                SourceArg::Bytes(b) => Source::Bytes { name, bytes: b },
                SourceArg::Path(p) => Source::Path(p),
            })
            .collect();
        // Ctrl-C: the reader checks the stop flag between reads of 1 MiB and between parse blocks.
        let data = super::interrupt::interruptible(py, |stop| {
            with_threads(self.n_threads, || {
                read_libsvm_sources_until(&srcs, &self.options, stop)
            })
        })???;
        let out = PyList::empty(py);
        for (d, (_, name)) in data.into_iter().zip(&self.sources) {
            let qid = d.qid.clone();
            let (x, y) = self.arrays(py, d, name)?;
            out.append(x)?;
            out.append(y)?;
            if self.query_id {
                out.append(qid.into_pyarray(py))?;
            }
        }
        Ok(out)
    }
}

impl SvmlightReader {
    /// One source's `X` (a `csr_matrix` of `dtype`, int32 indices, int32 `indptr` where it
    /// fits) and `y` (an array, or a list of tuples for multilabel rows).
    fn arrays<'py>(
        &self,
        py: Python<'py>,
        d: LibsvmData,
        name: &str,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let np = py.import("numpy")?;
        let dtype = self.dtype.bind(py);
        if dtype.getattr("itemsize")?.extract::<usize>()? < 8 {
            let finfo = np.getattr("finfo")?.call1((dtype,))?;
            let nmant: i32 = finfo.getattr("nmant")?.extract()?;
            let maxexp: i32 = finfo.getattr("maxexp")?.extract()?;
            if let Some((row, value)) = d.narrowing_overflow(nmant, maxexp - 1) {
                let largest: f64 = finfo.getattr("max")?.extract()?;
                let largest = py
                    .import("builtins")?
                    .getattr("format")?
                    .call1((largest, ".8g"))?;
                return Err(PyValueError::new_err(format!(
                    "{name}: data row {}: the value {} does not fit in {} (largest {}); load \
                     with dtype=np.float64",
                    row + 1,
                    value.into_pyobject(py)?.repr()?,
                    dtype.str()?,
                    largest
                )));
            }
        }
        let (n_rows, n_cols) = (d.x.n_rows(), d.x.n_cols());
        let (indptr, indices, values) = d.x.into_parts();
        let no_copy = PyDict::new(py);
        no_copy.set_item("copy", false)?;
        let values = values
            .into_pyarray(py)
            .call_method("astype", (dtype,), Some(&no_copy))?;
        let int32 = np.getattr("int32")?;
        let indices = indices.into_pyarray(py).call_method1("view", (&int32,))?;
        let indptr = match i32::try_from(*indptr.last().unwrap_or(&0)) {
            Ok(_) => indptr
                .into_iter()
                .map(|p| p as i32)
                .collect::<Vec<_>>()
                .into_pyarray(py)
                .into_any(),
            Err(_) => indptr
                .into_pyarray(py)
                .call_method1("view", (np.getattr("int64")?,))?,
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("shape", (n_rows, n_cols))?;
        kwargs.set_item("copy", false)?;
        let x = py
            .import("scipy.sparse")?
            .getattr("csr_matrix")?
            .call(((values, indices, indptr),), Some(&kwargs))?;
        let y = match d.y {
            Targets::Single(y) => y.into_pyarray(py).into_any(),
            Targets::Multi { indptr, values } => {
                let values = values.into_pyarray(py);
                let tuple = py.import("builtins")?.getattr("tuple")?;
                let rows = indptr.windows(2).map(|w| {
                    let slice = PySlice::new(py, w[0] as isize, w[1] as isize, 1);
                    tuple.call1((values.get_item(slice)?,))
                });
                PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)?.into_any()
            }
        };
        Ok((x, y))
    }
}

/// What `fwsvm.dump_svmlight_file` takes besides the features, `y` and the file, as one dict.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct DumpArgs<'py> {
    zero_based: bool,
    comment: Bound<'py, PyAny>,
    query_id: Bound<'py, PyAny>,
    multilabel: bool,
}

/// The comment as text (bytes decoded as ASCII), refused with a NUL byte.
fn comment_text(comment: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if comment.is_none() {
        return Ok(None);
    }
    let text: String = match comment.is_instance_of::<PyBytes>() {
        true => comment.call_method1("decode", ("ascii",))?.extract()?,
        false => comment.extract()?,
    };
    if text.contains('\0') {
        return Err(PyValueError::new_err("comment string contains NUL byte"));
    }
    Ok(Some(text))
}

/// The labels as the writer takes them: `(y, None)` or, for multilabel rows, `(indptr,
/// Some(values))` from the indicator matrix's non-zero columns; and the number of rows.
fn dump_labels<'py>(
    y: &Bound<'py, PyAny>,
    multilabel: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>, usize)> {
    let py = y.py();
    let np = py.import("numpy")?;
    let sp = py.import("scipy.sparse")?;
    let sparse = sp.call_method1("issparse", (y,))?.is_truthy()?;
    if multilabel {
        let y = match sparse {
            true => y.call_method0("tocsr")?,
            false => sp.getattr("csr_matrix")?.call1((y,))?,
        };
        y.call_method0("sort_indices")?;
        y.call_method0("eliminate_zeros")?;
        let indptr = y
            .getattr("indptr")?
            .call_method1("astype", (np.getattr("uintp")?,))?;
        let values = y
            .getattr("indices")?
            .call_method1("astype", (np.getattr("float64")?,))?;
        let n = y.getattr("shape")?.get_item(0)?.extract()?;
        return Ok((indptr, Some(values), n));
    }
    let y = match sparse {
        true => y.call_method0("toarray")?,
        false => y.clone(),
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", np.getattr("float64")?)?;
    let mut yv = np.getattr("asarray")?.call((y,), Some(&kwargs))?;
    let shape: Bound<'_, PyTuple> = yv.getattr("shape")?.cast_into()?;
    if shape.len() == 2 && shape.get_item(1)?.extract::<usize>()? == 1 {
        yv = yv.get_item((PySlice::full(py), 0))?;
    } else if shape.len() != 1 {
        return Err(PyValueError::new_err(format!(
            "expected y of shape (n_samples,), got {}",
            shape.repr()?
        )));
    }
    let n = yv.len()?;
    Ok((np.call_method1("ascontiguousarray", (yv,))?, None, n))
}

/// `query_id` as a contiguous int64 array of `n_rows` entries.
fn dump_query_id<'py>(query_id: &Bound<'py, PyAny>, n_rows: usize) -> PyResult<Bound<'py, PyAny>> {
    let np = query_id.py().import("numpy")?;
    let kwargs = PyDict::new(query_id.py());
    kwargs.set_item("dtype", np.getattr("int64")?)?;
    let q = np.getattr("asarray")?.call((query_id,), Some(&kwargs))?;
    let shape = q.getattr("shape")?;
    if shape.extract::<(usize,)>().ok() != Some((n_rows,)) {
        return Err(PyValueError::new_err(format!(
            "expected query_id of shape ({n_rows},), got {}",
            shape.repr()?
        )));
    }
    np.call_method1("ascontiguousarray", (q,))
}

/// Writes LIBSVM/svmlight text to `f`: a path (`str` or `os.PathLike`) or a binary file object.
#[pyfunction]
pub(crate) fn dump_svmlight<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    y: &Bound<'py, PyAny>,
    f: &Bound<'py, PyAny>,
    options: DumpArgs<'py>,
) -> PyResult<()> {
    let comment = comment_text(&options.comment)?;
    let x = x.view()?;
    let (labels, label_values, n_y) = dump_labels(y, options.multilabel)?;
    if x.n_rows() != n_y {
        return Err(PyValueError::new_err(format!(
            "X.shape[0] and y.shape[0] should be the same, got {} and {n_y} instead.",
            x.n_rows()
        )));
    }
    let query_id = match options.query_id.is_none() {
        true => None,
        false => Some(dump_query_id(&options.query_id, n_y)?),
    };
    let qid: Option<PyReadonlyArray1<'_, i64>> =
        query_id.as_ref().map(|q| q.extract()).transpose()?;
    let qid = qid.as_ref().map(|q| q.as_slice()).transpose()?;
    let y;
    let y_indptr;
    let y_values;
    let targets = match &label_values {
        None => {
            y = labels.extract::<PyReadonlyArray1<'_, f64>>()?;
            TargetsRef::Single(y.as_slice()?)
        }
        Some(values) => {
            y_indptr = labels.extract::<PyReadonlyArray1<'_, usize>>()?;
            y_values = values.extract::<PyReadonlyArray1<'_, f64>>()?;
            TargetsRef::Multi {
                indptr: y_indptr.as_slice()?,
                values: y_values.as_slice()?,
            }
        }
    };
    let (zero_based, comment) = (options.zero_based, comment.as_deref());
    let os = py.import("os")?;
    if f.is_instance_of::<PyString>() || f.is_instance(&os.getattr("PathLike")?)? {
        let p: PathBuf = f.extract()?;
        let name = p.display().to_string();
        py.detach(|| -> Result<(), FwsvmError> {
            let file = std::fs::File::create(&p).map_err(|e| FwsvmError::io(&name, &e))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
            write_libsvm(&mut w, x, targets, qid, zero_based, comment).map_err(|e| match e {
                FwsvmError::Io { message, kind, .. } => FwsvmError::Io {
                    path: name.clone(),
                    message,
                    kind,
                },
                other => other,
            })
        })?;
        return Ok(());
    }
    let mut buf = Vec::new();
    py.detach(|| write_libsvm(&mut buf, x, targets, qid, zero_based, comment))?;
    if !f.hasattr("write")? {
        return Err(PyTypeError::new_err(
            "f must be a path or a binary file object",
        ));
    }
    f.call_method1("write", (PyBytes::new(py, &buf),))?;
    Ok(())
}
