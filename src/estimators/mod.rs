//! The estimators: builder → checked parameters → fitted model (linfa's shape), on top of the
//! solvers and the models.
//!
//! - [`svc`]: [`Svc`](crate::Svc) → [`SvcModel`](crate::SvcModel), two classes or one-vs-one
//!   ([`multiclass`]), with Platt's probabilities ([`cross_validation`]);
//! - [`svr`]: [`Svr`](crate::Svr) → [`SvrModel`](crate::SvrModel);
//! - [`one_class`]: [`OneClass`](crate::OneClass) → [`OneClassModel`](crate::OneClassModel);
//! - [`libsvm_models`]: LIBSVM's one-class ν-SVM, ε-SVR and ν-SVR ([`EpsilonSvr`](crate::EpsilonSvr),
//!   [`NuSvr`](crate::NuSvr), [`NuOneClass`](crate::NuOneClass)) → [`DualModel`](crate::DualModel);
//!   ν-SVC is [`Svc`](crate::Svc) with [`SvcParams::nu`](crate::SvcParams::nu).
//!
//! They are also reachable under their earlier paths (`fwsvm::params`, `fwsvm::svr`,
//! `fwsvm::one_class`, `fwsvm::multiclass`, `fwsvm::cross_validation`).

pub mod cross_validation;
pub mod libsvm_models;
pub mod multiclass;
pub mod one_class;
pub mod svc;
pub mod svr;
