//! The Python extension module `fwsvm._core` — the only place pyo3 and numpy are used.
//!
//! Each function extracts its arguments (borrowing NumPy/SciPy buffers, never copying them),
//! releases the GIL for the native work and maps [`FwsvmError`](crate::FwsvmError) to a
//! Python exception in one place ([`errors`]).

mod cli;
mod convert;
mod crammer_singer;
mod distributed_linear;
mod errors;
mod expansion_model;
mod feature_maps;
mod interrupt;
mod io;
mod libsvm_model;
mod linear;
mod parameters;
mod persistence;
mod predict;
mod probability;
mod progress;
mod svc;
mod svc_model;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    fwsvm._core,
    LibsvmFormatError,
    PyValueError,
    "A malformed line in a LIBSVM/svmlight file; the message names the file, line and column."
);

create_exception!(
    fwsvm._core,
    LibsvmModelError,
    PyValueError,
    "A LIBSVM model file that cannot be read (malformed, inconsistent, non-finite values) or is \
     of a type fwsvm does not import; the message names the file, the line and the problem."
);

create_exception!(
    fwsvm._core,
    ModelFormatError,
    PyValueError,
    "A model file that is not a valid fwsvm model of a supported version (truncated, corrupted, \
     newer, or crafted); the message names the file and the problem."
);

/// Adds each `#[pyfunction]` to the module `m`.
macro_rules! add_functions {
    ($m:expr, $($f:path),+ $(,)?) => {
        $($m.add_function(wrap_pyfunction!($f, $m)?)?;)+
    };
}

/// The native core of fwsvm (private: use the `fwsvm` package).
#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<progress::ProgressQueue>()?;
    m.add_class::<svc_model::SvcHandle>()?;
    m.add_class::<expansion_model::ExpansionHandle>()?;
    m.add_class::<io::SvmlightReader>()?;
    m.add_class::<distributed_linear::NewtonDriver>()?;
    m.add(
        "MODEL_MAGIC",
        pyo3::types::PyBytes::new(m.py(), crate::model_file::MAGIC),
    )?;
    m.add(
        "DEFAULT_CS",
        pyo3::types::PyTuple::new(m.py(), parameters::DEFAULT_CS)?,
    )?;
    m.add("MODEL_FORMAT_VERSION", crate::model_file::FORMAT_VERSION)?;
    m.add("LibsvmFormatError", m.py().get_type::<LibsvmFormatError>())?;
    m.add("ModelFormatError", m.py().get_type::<ModelFormatError>())?;
    m.add("LibsvmModelError", m.py().get_type::<LibsvmModelError>())?;
    add_functions!(
        m,
        svc_model::fit_svc_model,
        svc_model::svc_model_from_pairs,
        svc::fit_one_class,
        svc::fit_dual,
        svc::summarize_fit,
        svc::ball_constants,
        svc::data_variance,
        predict::decision_values,
        crammer_singer::fit_crammer_singer,
        linear::fit_sgd_svc,
        linear::sgd_objective,
        feature_maps::fit_nystroem,
        feature_maps::coreset_rows,
        feature_maps::transform_features,
        feature_maps::fit_random_fourier,
        linear::kernel_values,
        linear::kernel_diagonal,
        distributed_linear::cocoa_local_round,
        distributed_linear::cocoa_gap_pieces,
        distributed_linear::cocoa_shard_weights,
        distributed_linear::fit_linear_hinge,
        distributed_linear::newton_pieces,
        io::dump_svmlight,
        instruction_set,
        cli::cli_main,
        persistence::read_model_file,
        persistence::write_model_file,
        persistence::restore_model,
        libsvm_model::read_libsvm_model,
        libsvm_model::save_libsvm_model,
        libsvm_model::libsvm_expansion_form,
        probability::sigmoid_train,
        probability::sigmoid_predict,
        probability::couple,
        parameters::estimator_parameters,
    );
    Ok(())
}

/// The instruction set of the hot loops on this machine: "avx512+vpopcntdq (kernel look-up,
/// exp, scan), avx2 (products)", "avx2+popcnt" or "baseline" (`FWSVM_SIMD=avx2` caps it at AVX2,
/// `FWSVM_SIMD=off` forces the baseline).
#[pyfunction]
fn instruction_set() -> &'static str {
    crate::simd::instruction_set()
}
