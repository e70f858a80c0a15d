//! [`FwsvmError`] → Python exceptions, in one place.

use pyo3::PyErr;
use pyo3::exceptions::{
    PyFileNotFoundError, PyKeyboardInterrupt, PyMemoryError, PyOSError, PyPermissionError,
    PyRuntimeError, PyValueError,
};

use crate::error::FwsvmError;

impl From<FwsvmError> for PyErr {
    fn from(e: FwsvmError) -> PyErr {
        match e {
            FwsvmError::Interrupted => PyKeyboardInterrupt::new_err(e.to_string()),
            FwsvmError::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
            FwsvmError::ThreadPool(_) => PyRuntimeError::new_err(e.to_string()),
            FwsvmError::InvalidParameter { .. }
            | FwsvmError::InvalidInput(_)
            | FwsvmError::NonFinite { .. }
            | FwsvmError::Classes(_) => PyValueError::new_err(e.to_string()),
            FwsvmError::Parse { .. } => super::LibsvmFormatError::new_err(e.to_string()),
            FwsvmError::ModelFormat(_) => super::ModelFormatError::new_err(e.to_string()),
            FwsvmError::LibsvmModel { .. } => super::LibsvmModelError::new_err(e.to_string()),
            FwsvmError::Io { kind, .. } => match kind {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(e.to_string()),
                std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(e.to_string()),
                _ => PyOSError::new_err(e.to_string()),
            },
        }
    }
}
