//! Fitted models: a kernel expansion f(x) = Σ_s coef_s k(x_s, x) + intercept over support
//! vectors, plus what each model type adds (classes, statistics).

mod expansion;
mod svc;

pub(crate) use expansion::check_query_features;
pub use expansion::{KernelExpansion, decision_values};
pub use svc::SvcModel;
