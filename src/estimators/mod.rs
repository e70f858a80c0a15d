//! The estimators: builder → checked parameters → fitted model (linfa's shape), on top of the
//! solvers and the models.
//!
//! - [`svc`]: [`Svc`](crate::Svc) → [`SvcModel`](crate::SvcModel), two classes or one-vs-one
//!   ([`multiclass`]), with Platt's probabilities ([`cross_validation`]);
//! - [`svr`]: [`Svr`](crate::Svr) → [`SvrModel`](crate::SvrModel);
//! - [`one_class`]: [`OneClass`](crate::OneClass) → [`OneClassModel`](crate::OneClassModel);
//! - [`libsvm_models`]: LIBSVM's one-class ν-SVM, ε-SVR and ν-SVR ([`EpsilonSvr`](crate::EpsilonSvr),
//!   [`NuSvr`](crate::NuSvr), [`NuOneClass`](crate::NuOneClass)) → [`DualModel`](crate::DualModel);
//!   ν-SVC is [`Svc`](crate::Svc) with [`SvcParams::nu`](crate::SvcParams::nu);
//! - [`labels`]: class labels of any ordered type (integers, `bool`, `String`, …) for
//!   [`Svc`](crate::Svc), from slices or `ndarray::ArrayView1`
//!   ([`SvcParams::fit_labels`](crate::SvcParams::fit_labels)).
//!
//! They are also reachable under their earlier paths (`fwsvm::params`, `fwsvm::svr`,
//! `fwsvm::one_class`, `fwsvm::multiclass`, `fwsvm::cross_validation`).

pub mod cross_validation;
pub mod labels;
pub mod libsvm_models;
pub mod multiclass;
pub mod one_class;
pub mod svc;
pub mod svr;

use crate::data::Features;
use crate::error::{FwsvmError, Result};

/// The checks every fit makes of its inputs: rows and columns, finite X, one target (labels or
/// targets, `what`) per row when given, finite and non-negative sample weights one per row.
pub(crate) fn check_fit_inputs(
    x: &Features<'_>,
    y: Option<(&[f64], &str)>,
    sample_weight: Option<&[f64]>,
) -> Result<()> {
    let m = x.n_rows();
    if m == 0 {
        return Err(FwsvmError::InvalidInput("X has no rows (0 samples)".into()));
    }
    if x.n_cols() == 0 {
        return Err(FwsvmError::InvalidInput(
            "X has no columns (0 features)".into(),
        ));
    }
    if let Some((y, what)) = y {
        if y.len() != m {
            return Err(FwsvmError::InvalidInput(format!(
                "X has {m} rows but y has {} {what}",
                y.len()
            )));
        }
        if let Some(row) = y.iter().position(|v| !v.is_finite()) {
            return Err(FwsvmError::NonFinite { what: "y", row });
        }
    }
    if let Some(w) = sample_weight {
        if w.len() != m {
            return Err(FwsvmError::InvalidInput(format!(
                "sample_weight has {} entries but X has {m} rows",
                w.len()
            )));
        }
        if let Some(row) = w.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(FwsvmError::InvalidInput(format!(
                "sample_weight must be finite and non-negative, got {} at row {row}",
                w[row]
            )));
        }
    }
    x.check_finite("X")
}
