//! The Python extension module `fwsvm._core` — the only place pyo3 and numpy are used.
//!
//! Each function extracts its arguments (borrowing NumPy/SciPy buffers, never copying them),
//! releases the GIL for the native work and maps [`FwsvmError`](crate::FwsvmError) to a
//! Python exception in one place ([`errors`]).

mod convert;
mod errors;
mod svc;

use pyo3::prelude::*;

/// The native core of fwsvm (private: use the `fwsvm` package).
#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<svc::CancelToken>()?;
    m.add_function(wrap_pyfunction!(svc::fit_svc, m)?)?;
    m.add_function(wrap_pyfunction!(svc::decision_function, m)?)?;
    m.add_function(wrap_pyfunction!(svc::data_variance, m)?)?;
    Ok(())
}
