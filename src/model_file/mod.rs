//! The versioned model file (`.fwm`): one implementation, used by the Rust models'
//! `save`/`load` and by Python's `est.save` / `fwsvm.load_model`.
//!
//! # Layout (format version 1, little-endian)
//!
//! ```text
//! magic      8 bytes   b"FWSVMMOD"
//! version    u16       format version (FORMAT_VERSION)
//! reserved   u16       0
//! length     u64       payload length in bytes
//! crc32      u32       CRC-32 (zlib's) of the payload
//! payload    length    a NumPy .npz archive: a ZIP of stored .npy entries, "__meta__.npy"
//!                      (the UTF-8 JSON {"estimator", "fwsvm_version", "params", "scalars"} as a
//!                      uint8 array) and one entry per array attribute ("dual_coef_.npy"; a
//!                      sparse attribute as "<name>.csr.{data,indices,indptr,shape}.npy")
//! ```
//!
//! The attribute names and layouts are those of the Python estimators (`SVC`, `SVR`,
//! `OneClassSVM`: scikit-learn's `support_`, `dual_coef_`, `intercept_`, ...), so a model saved
//! by either language loads in the other. `CrammerSingerSVC`, `SGDSVC`, `Nystroem` and
//! `RandomFourierFeatures` are saved and checked the same way; they have no Rust model, so
//! only Python loads them.
//!
//! # Why version 1 is kept
//!
//! Format 1 was written by Python (`np.savez`), and files of it exist. This module writes
//! exactly that format, so files it writes load in every fwsvm released so far and in NumPy
//! (`np.load` of the payload), and it reads every version-1 file, NumPy-written ones included
//! (their ZIP64 extra fields too). A new version would have bought nothing but a break.
//!
//! # What is checked
//!
//! Reading never trusts the file: the header (magic, version — newer versions are refused by
//! name —, reserved bytes, the length against the bytes actually present, so a header claiming
//! a huge length allocates nothing), the CRC-32 of the payload and of every entry, each
//! `.npy` header (only numbers, booleans and strings; the data length must match the shape),
//! the JSON, the estimator class, every parameter name and the values the model computes with,
//! every attribute name (known attributes only), finite scalars, CSR invariants and the
//! agreement of the fitted arrays' shapes (LIBSVM's layout), so that prediction indexes within
//! bounds. Every failure is [`FwsvmError::ModelFormat`] naming the file and the problem.

pub(crate) mod atomic;
mod estimators;
pub mod libsvm;
mod npy;
mod validate;
mod zip;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub use estimators::{Model, load};
pub(crate) use estimators::{kernel_params, solver_params};
pub use libsvm::{LibsvmModel, SvmType};
pub(crate) use npy::{DType, NpyArray};

use crate::error::{FwsvmError, Result};

/// The first eight bytes of every model file.
pub const MAGIC: &[u8; 8] = b"FWSVMMOD";
/// The format version this build writes (and the newest it reads).
pub const FORMAT_VERSION: u16 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 24;

/// The estimator classes a file can hold (the Python class names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Estimator {
    /// `SVC`.
    Svc,
    /// `SVR`.
    Svr,
    /// `OneClassSVM`.
    OneClass,
    /// `NuSVC` (an SVC file with ν).
    NuSvc,
    /// `NuSVR` (an SVR file with ν).
    NuSvr,
    /// `CrammerSingerSVC` (Python only: no Rust model).
    CrammerSinger,
    /// `SGDSVC` (Python only).
    SgdSvc,
    /// `Nystroem` (Python only).
    Nystroem,
    /// `RandomFourierFeatures` (Python only).
    RandomFourier,
}

impl Estimator {
    /// Whether the file holds a classifier (classes and one-vs-one layout).
    pub(crate) fn is_classifier(self) -> bool {
        matches!(self, Estimator::Svc | Estimator::NuSvc)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Estimator::Svc => "SVC",
            Estimator::Svr => "SVR",
            Estimator::OneClass => "OneClassSVM",
            Estimator::NuSvc => "NuSVC",
            Estimator::NuSvr => "NuSVR",
            Estimator::CrammerSinger => "CrammerSingerSVC",
            Estimator::SgdSvc => "SGDSVC",
            Estimator::Nystroem => "Nystroem",
            Estimator::RandomFourier => "RandomFourierFeatures",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Self> {
        [
            Estimator::Svc,
            Estimator::Svr,
            Estimator::OneClass,
            Estimator::NuSvc,
            Estimator::NuSvr,
            Estimator::CrammerSinger,
            Estimator::SgdSvc,
            Estimator::Nystroem,
            Estimator::RandomFourier,
        ]
        .into_iter()
        .find(|e| e.name() == name)
    }
}

/// The decoded contents of a model file: the estimator class, its parameters and scalar
/// attributes (JSON) and its array attributes (sparse ones as their `.csr.` parts).
#[derive(Clone, Debug)]
pub(crate) struct ModelArchive {
    pub estimator: Estimator,
    pub fwsvm_version: String,
    pub params: Map<String, Value>,
    pub scalars: Map<String, Value>,
    pub arrays: BTreeMap<String, NpyArray>,
}

/// An error about the file (or bytes) called `name`.
pub(crate) fn format_error(name: &str, why: impl std::fmt::Display) -> FwsvmError {
    FwsvmError::ModelFormat(format!("{name}: {why}"))
}

impl ModelArchive {
    /// The file's bytes, after the same checks as reading (a file this writes always loads).
    ///
    /// # Errors
    /// [`FwsvmError::ModelFormat`] for contents that reading would refuse.
    pub fn to_bytes(&self, name: &str) -> Result<Vec<u8>> {
        validate::check(self, name)?;
        let mut meta = Map::new();
        meta.insert("estimator".into(), self.estimator.name().into());
        meta.insert("fwsvm_version".into(), self.fwsvm_version.clone().into());
        meta.insert("params".into(), Value::Object(self.params.clone()));
        meta.insert("scalars".into(), Value::Object(self.scalars.clone()));
        let json = serde_json::to_vec(&Value::Object(meta))
            .map_err(|e| format_error(name, format!("metadata is not JSON: {e}")))?;
        let meta_array = NpyArray::from_raw(DType::UInt(1), vec![json.len()], false, json)
            .map_err(|e| format_error(name, e))?;
        let mut entries = vec![("__meta__.npy".to_string(), meta_array.to_npy())];
        for (key, array) in &self.arrays {
            entries.push((format!("{key}.npy"), array.to_npy()));
        }
        let payload = zip::write_stored(&entries).map_err(|e| format_error(name, e))?;
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Decodes and checks the bytes of a model file; `name` (the path) prefixes every message.
    ///
    /// # Errors
    /// [`FwsvmError::ModelFormat`] saying what is wrong (see the module docs).
    pub fn from_bytes(blob: &[u8], name: &str) -> Result<Self> {
        let fail = |why: String| format_error(name, why);
        if blob.len() < HEADER_LEN {
            return Err(fail(format!(
                "truncated: {} bytes, shorter than the {HEADER_LEN}-byte header",
                blob.len()
            )));
        }
        if &blob[..8] != MAGIC {
            return Err(fail(format!(
                "not an fwsvm model file (bad magic bytes {:?})",
                String::from_utf8_lossy(&blob[..8])
            )));
        }
        let version = u16::from_le_bytes([blob[8], blob[9]]);
        let reserved = u16::from_le_bytes([blob[10], blob[11]]);
        let mut length = [0u8; 8];
        length.copy_from_slice(&blob[12..20]);
        let length = u64::from_le_bytes(length);
        let crc = u32::from_le_bytes([blob[20], blob[21], blob[22], blob[23]]);
        if version > FORMAT_VERSION {
            return Err(fail(format!(
                "written in model format version {version}, newer than this fwsvm supports \
                 ({FORMAT_VERSION}); upgrade fwsvm to read it"
            )));
        }
        if version < 1 || reserved != 0 {
            return Err(fail(format!(
                "invalid header (version {version}, reserved bytes {reserved})"
            )));
        }
        let payload = &blob[HEADER_LEN..];
        if payload.len() as u64 != length {
            return Err(fail(format!(
                "truncated or padded: payload has {} bytes, header says {length}",
                payload.len()
            )));
        }
        if crc32fast::hash(payload) != crc {
            return Err(fail("corrupted: payload checksum does not match".into()));
        }
        // A valid checksum over an invalid archive: written by a broken or hostile tool.
        let unreadable = |why: String| fail(format!("unreadable payload ({why})"));
        let mut meta = None;
        let mut arrays = BTreeMap::new();
        for (entry, bytes) in zip::read_stored(payload).map_err(unreadable)? {
            let key = entry
                .strip_suffix(".npy")
                .ok_or_else(|| unreadable(format!("entry {entry:?} is not a .npy array")))?;
            let array = NpyArray::from_npy(bytes)
                .map_err(|e| unreadable(format!("entry {entry:?}: {e}")))?;
            if key == "__meta__" {
                meta = Some(array);
            } else if arrays.insert(key.to_string(), array).is_some() {
                return Err(unreadable(format!("entry {entry:?} appears twice")));
            }
        }
        let meta = meta.ok_or_else(|| unreadable("no __meta__ entry".into()))?;
        if meta.dtype() != DType::UInt(1) || meta.shape().len() != 1 {
            return Err(unreadable("__meta__ is not a byte array".into()));
        }
        let text = std::str::from_utf8(meta.data())
            .map_err(|_| unreadable("metadata is not UTF-8".into()))?;
        let meta: Value = serde_json::from_str(&python_json(text))
            .map_err(|e| unreadable(format!("metadata is not JSON: {e}")))?;
        let Value::Object(mut meta) = meta else {
            return Err(fail("malformed metadata".into()));
        };
        let (Some(Value::Object(params)), Some(Value::Object(scalars))) =
            (meta.remove("params"), meta.remove("scalars"))
        else {
            return Err(fail("malformed metadata".into()));
        };
        let class = meta.remove("estimator");
        let estimator = class
            .as_ref()
            .and_then(Value::as_str)
            .and_then(Estimator::from_name)
            .ok_or_else(|| {
                fail(format!(
                    "unknown estimator class {}",
                    class.map_or("None".into(), |c| c.to_string())
                ))
            })?;
        let fwsvm_version = match meta.remove("fwsvm_version") {
            Some(Value::String(v)) => v,
            _ => String::new(),
        };
        let archive = ModelArchive {
            estimator,
            fwsvm_version,
            params,
            scalars,
            arrays,
        };
        validate::check(&archive, name)?;
        Ok(archive)
    }

    /// Reads and checks the model file at `path`. Only the bytes present are read: a header
    /// claiming a huge length costs nothing.
    ///
    /// # Errors
    /// [`FwsvmError::Io`] when the file cannot be read, else as [`Self::from_bytes`].
    pub fn read(path: &std::path::Path) -> Result<Self> {
        let name = path.display().to_string();
        let blob = std::fs::read(path).map_err(|e| FwsvmError::io(&name, &e))?;
        Self::from_bytes(&blob, &name)
    }

    /// Writes the model file at `path`.
    ///
    /// # Errors
    /// As [`Self::to_bytes`], and [`FwsvmError::Io`] when the file cannot be written.
    pub fn write(&self, path: &std::path::Path) -> Result<()> {
        let name = path.display().to_string();
        let bytes = self.to_bytes(&name)?;
        atomic::write_with(path, |w| w.write_all(&bytes))
    }
}

/// Python's `json.dumps` writes non-finite floats as the bare words `NaN`, `Infinity` and
/// `-Infinity`, which are not JSON: they become `null` here (no attribute the models compute
/// with may be non-finite anyway, and those are checked).
fn python_json(text: &str) -> std::borrow::Cow<'_, str> {
    if !(text.contains("NaN") || text.contains("Infinity")) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if let Some(word) = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w))
        {
            out.push_str("null");
            rest = &rest[word.len()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::python_json;

    #[test]
    fn python_non_finite_floats_become_null() {
        assert_eq!(
            python_json(r#"{"a": NaN, "b": [Infinity, -Infinity], "NaN": "x NaN \" NaN"}"#),
            r#"{"a": null, "b": [null, null], "NaN": "x NaN \" NaN"}"#
        );
    }
}
