//! The crate's error type.
//!
//! Every failure a user can cause (bad parameters, bad data, malformed files) is a variant here;
//! the Python binding maps them once, in `src/python/errors.rs`, to `ValueError`/`OSError`
//! subclasses. Nothing in the crate panics on user input.

use thiserror::Error;

/// Everything that can go wrong in fwsvm.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FwsvmError {
    /// A hyper-parameter is outside its valid range.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// The parameter's name as the user spells it (`C`, `tol`, `gamma`, ...).
        name: &'static str,
        /// What was wrong and what is allowed.
        reason: String,
    },
    /// The training or test data cannot be used (empty, wrong shape, inconsistent arrays).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A NaN or infinity in the data.
    #[error("{what} contains a non-finite value (NaN or infinity) in row {row}")]
    NonFinite {
        /// Which array (`X`, `y`, `sample_weight`).
        what: &'static str,
        /// The first offending row.
        row: usize,
    },
    /// The labels contain fewer or more classes than the problem needs.
    #[error("{0}")]
    Classes(String),
    /// The run was interrupted by the caller's monitor (Ctrl-C in Python).
    #[error("training was interrupted")]
    Interrupted,
    /// A malformed line in a LIBSVM/svmlight file.
    #[error("{source_name}, line {line}, column {column}: {message}")]
    Parse {
        /// The file name (or `<bytes>` for in-memory data).
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// 1-based byte column where the offending token starts.
        column: usize,
        /// What was found and what was expected.
        message: String,
    },
    /// A LIBSVM model file (`svm-train`'s output) that is not a valid model: malformed,
    /// inconsistent counts, non-finite numbers, repeated labels, decreasing indices. `line`
    /// is 0 for a problem of the file as a whole. Python: `fwsvm.LibsvmModelError`.
    #[error("{path}{}: {message}", if *line > 0 { format!(", line {line}") } else { String::new() })]
    LibsvmModel {
        /// The file name.
        path: String,
        /// 1-based line number, or 0.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file could not be opened, read or written.
    #[error("{path}: {message}")]
    Io {
        /// The path involved.
        path: String,
        /// The operating system's message.
        message: String,
        /// What kind of failure (`NotFound`, `PermissionDenied`, ...).
        kind: std::io::ErrorKind,
    },
    /// The scoped thread pool could not be created.
    #[error("could not build the thread pool: {0}")]
    ThreadPool(String),
    /// A model file (or the bytes of one) that is not a valid fwsvm model of a supported format
    /// version: truncated, corrupted, of a newer version, or crafted (unknown attributes,
    /// invalid parameters, inconsistent shapes). Python: `fwsvm.ModelFormatError`.
    #[error("{0}")]
    ModelFormat(String),
    /// A large buffer could not be allocated (Python: `MemoryError`). The buffers whose size a
    /// caller controls are allocated fallibly ([`try_reserve`], [`try_filled`]): the LIBSVM
    /// reader's text and parsed data, one-vs-one decision values (rows × pairs) and kernel
    /// expansions. The kernel-column cache stops growing where an allocation fails instead (it
    /// evicts, as when it is full). Buffers of a few times the input's size still abort on
    /// failure, as any allocation in Rust does.
    #[error("out of memory: {bytes} bytes for {what}")]
    OutOfMemory {
        /// What the buffer was for.
        what: &'static str,
        /// How many bytes were requested.
        bytes: u128,
    },
}

/// Conversions into [`Features`](crate::Features) that cannot fail (from this crate's own
/// matrices) report [`std::convert::Infallible`]; this lets inputs that *can* fail (an
/// `ndarray` view that is not in standard layout) share the same signatures.
impl From<std::convert::Infallible> for FwsvmError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

/// Shorthand for results whose error is [`FwsvmError`].
pub type Result<T> = std::result::Result<T, FwsvmError>;

impl FwsvmError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<String>, err: &std::io::Error) -> Self {
        FwsvmError::Io {
            path: path.into(),
            message: err.to_string(),
            kind: err.kind(),
        }
    }

    /// Shorthand for [`FwsvmError::InvalidParameter`].
    pub fn param(name: &'static str, reason: impl Into<String>) -> Self {
        FwsvmError::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }
}

/// `v.try_reserve(additional)`, with the failure (or a size that overflows) as
/// [`FwsvmError::OutOfMemory`] naming `what`, instead of aborting the process.
pub fn try_reserve<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    v.try_reserve(additional)
        .map_err(|_| FwsvmError::OutOfMemory {
            what,
            bytes: (v.len() as u128 + additional as u128) * std::mem::size_of::<T>() as u128,
        })
}

/// A vector of `len` copies of `value`, with an allocation failure (or a length whose size
/// overflows) as [`FwsvmError::OutOfMemory`] naming `what`.
pub fn try_filled<T: Clone>(len: usize, value: T, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| FwsvmError::OutOfMemory {
            what,
            bytes: len as u128 * std::mem::size_of::<T>() as u128,
        })?;
    v.resize(len, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_allocations_are_errors() {
        let err = try_reserve(&mut Vec::<f64>::new(), usize::MAX / 2, "a test buffer").unwrap_err();
        assert!(matches!(
            err,
            FwsvmError::OutOfMemory {
                what: "a test buffer",
                ..
            }
        ));
        assert!(err.to_string().starts_with("out of memory: "));
        assert!(err.to_string().ends_with("bytes for a test buffer"));
        let err = try_filled(usize::MAX / 4, 0.0f64, "decision values").unwrap_err();
        assert!(
            err.to_string().ends_with("bytes for decision values"),
            "{err}"
        );
        assert_eq!(try_filled(3, 2.5f64, "small").unwrap(), vec![2.5; 3]);
        let mut small = vec![1u8];
        try_reserve(&mut small, 3, "small").unwrap();
        assert!(small.capacity() >= 4);
    }
}
