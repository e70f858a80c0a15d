//! Fitted models: kernel expansions f(x) = Σ_s coef_s k(x_s, x) + intercept over support
//! vectors, plus what each model type adds (classes and one-vs-one votes, the SVR's target
//! scale, the one-class ball's threshold, statistics).

mod expansion;
mod one_class;
mod ovo;
mod svc;
mod svr;

pub(crate) use expansion::check_query_features;
pub use expansion::{KernelExpansion, decision_values};
pub use one_class::OneClassModel;
pub use ovo::{ovo_decision_values, ovo_votes};
pub use svc::SvcModel;
pub use svr::SvrModel;
