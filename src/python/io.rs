//! LIBSVM/svmlight reading and writing for `fwsvm.load_svmlight_file(s)` and
//! `fwsvm.dump_svmlight_file`.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict, PyList};

use super::convert::FeaturesArg;
use crate::data::libsvm::{
    DEFAULT_MAX_LINE_BYTES, ReadOptions, Source, Targets, TargetsRef, ZeroBased,
    read_libsvm_sources_until, write_libsvm,
};
use crate::error::FwsvmError;
use crate::parallel::with_threads;

/// A path or in-memory bytes.
#[derive(FromPyObject)]
pub(crate) enum SourceArg {
    Bytes(PyBackedBytes),
    Path(PathBuf),
}

/// How to read (`fwsvm.load_svmlight_files`'s options, as one dict).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct ReadArgs {
    #[pyo3(default)]
    n_features: Option<usize>,
    #[pyo3(default)]
    multilabel: bool,
    zero_based: String,
    #[pyo3(default)]
    offset: u64,
    length: i64,
    #[pyo3(default)]
    n_threads: Option<usize>,
    #[pyo3(default)]
    max_line_length: Option<usize>,
}

/// Reads LIBSVM/svmlight sources; returns one dict of CSR parts and labels per source.
#[pyfunction]
#[pyo3(signature = (sources, names, options, *, cancel=None))]
pub(crate) fn load_svmlight<'py>(
    py: Python<'py>,
    sources: Vec<SourceArg>,
    names: Vec<String>,
    options: ReadArgs,
    cancel: Option<PyRef<'py, super::svc::CancelToken>>,
) -> PyResult<Bound<'py, PyList>> {
    let ReadArgs {
        n_features,
        multilabel,
        zero_based,
        offset,
        length,
        n_threads,
        max_line_length,
    } = options;
    let zero_based = match zero_based.as_str() {
        "auto" => ZeroBased::Auto,
        "true" => ZeroBased::Yes,
        "false" => ZeroBased::No,
        other => {
            return Err(FwsvmError::param(
                "zero_based",
                format!("expected True, False or 'auto', got {other:?}"),
            )
            .into());
        }
    };
    let options = ReadOptions {
        zero_based,
        n_features,
        multilabel,
        offset,
        length: (length > 0).then_some(length as u64),
        max_line_bytes: max_line_length.unwrap_or(DEFAULT_MAX_LINE_BYTES),
    };
    let srcs: Vec<Source<'_>> = sources
        .iter()
        .zip(&names)
        .map(|(s, name)| match s {
            SourceArg::Bytes(b) => Source::Bytes { name, bytes: b },
            SourceArg::Path(p) => Source::Path(p),
        })
        .collect();
    // Ctrl-C: the Python side (`run_interruptible`) sets the token; the reader checks it
    // between reads of 1 MiB and between parse blocks.
    let flag = cancel.map(|t| t.flag.clone());
    let stop = move || {
        flag.as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    };
    let data = py.detach(|| {
        with_threads(n_threads, || {
            read_libsvm_sources_until(&srcs, &options, &stop)
        })
    })??;
    let out = PyList::empty(py);
    for d in data {
        let dict = PyDict::new(py);
        let n_cols = d.x.n_cols();
        let (indptr, indices, values) = d.x.into_parts();
        dict.set_item("data", values.into_pyarray(py))?;
        dict.set_item("indices", indices.into_pyarray(py))?;
        dict.set_item("indptr", indptr.into_pyarray(py))?;
        dict.set_item("n_features", n_cols)?;
        match d.y {
            Targets::Single(y) => dict.set_item("y", y.into_pyarray(py))?,
            Targets::Multi { indptr, values } => {
                dict.set_item("y_indptr", indptr.into_pyarray(py))?;
                dict.set_item("y_values", values.into_pyarray(py))?;
            }
        }
        dict.set_item("qid", d.qid.into_pyarray(py))?;
        out.append(dict)?;
    }
    Ok(out)
}

/// What `fwsvm.dump_svmlight_file` writes besides the features, as one dict: the labels (`y`,
/// or `y_indptr` and `y_values` for multilabel rows), `query_id`, `zero_based`, `comment`, and
/// `path` (None: return the text as bytes).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct DumpArgs<'py> {
    #[pyo3(default)]
    y: Option<PyReadonlyArray1<'py, f64>>,
    #[pyo3(default)]
    y_indptr: Option<PyReadonlyArray1<'py, usize>>,
    #[pyo3(default)]
    y_values: Option<PyReadonlyArray1<'py, f64>>,
    #[pyo3(default)]
    query_id: Option<PyReadonlyArray1<'py, i64>>,
    zero_based: bool,
    #[pyo3(default)]
    comment: Option<String>,
    #[pyo3(default)]
    path: Option<PathBuf>,
}

/// Writes LIBSVM/svmlight text to `path`, or returns it as bytes when `path` is None.
#[pyfunction]
pub(crate) fn dump_svmlight<'py>(
    py: Python<'py>,
    x: FeaturesArg<'py>,
    options: DumpArgs<'py>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let DumpArgs {
        y,
        y_indptr,
        y_values,
        query_id,
        zero_based,
        comment,
        path,
    } = options;
    let x = x.view()?;
    let targets = match (&y, &y_indptr, &y_values) {
        (Some(y), _, _) => TargetsRef::Single(y.as_slice()?),
        (None, Some(i), Some(v)) => TargetsRef::Multi {
            indptr: i.as_slice()?,
            values: v.as_slice()?,
        },
        _ => return Err(FwsvmError::InvalidInput("y is required".into()).into()),
    };
    let qid = query_id.as_ref().map(|q| q.as_slice()).transpose()?;
    let comment = comment.as_deref();
    match path {
        Some(p) => {
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
            Ok(None)
        }
        None => {
            let mut buf = Vec::new();
            py.detach(|| write_libsvm(&mut buf, x, targets, qid, zero_based, comment))?;
            Ok(Some(PyBytes::new(py, &buf)))
        }
    }
}
