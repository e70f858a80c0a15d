//! Fitted models: kernel expansions f(x) = Σ_s coef_s k(x_s, x) + intercept over support
//! vectors, plus what each model type adds (classes and one-vs-one votes, the SVR's target
//! scale, the one-class ball's threshold, statistics).

mod expansion;
mod one_class;
mod ovo;
pub mod probability;
mod svc;
mod svr;

pub(crate) use expansion::check_query_features;
pub use expansion::{KernelExpansion, decision_values};
pub use one_class::OneClassModel;
pub use ovo::{ovo_decision_values, ovo_votes};
pub use svc::SvcModel;
pub use svr::SvrModel;

/// A query matrix for prediction: converted (an `ndarray` view must be row-major) and checked
/// for NaN and infinity.
pub(crate) fn query<'x>(
    x: impl TryInto<crate::data::Features<'x>, Error: Into<crate::error::FwsvmError>>,
) -> crate::error::Result<crate::data::Features<'x>> {
    let x = x.try_into().map_err(Into::into)?;
    x.check_finite("X")?;
    Ok(x)
}
