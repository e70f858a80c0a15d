//! [`SvrModel`]: a fitted L2-SVR with a learned tube width (see [`crate::problem::svr`]).

use super::SingleFit;
use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result};
use crate::kernel::Kernel;
use crate::solver::{HistoryEntry, SolverStats};

/// A fitted regression model on standardised targets: f(x) = Σ_s dual_coef_s k(x_s, x) +
/// intercept, and the prediction f(x) · `y_scale` + `y_mean` in the units of y.
#[derive(Clone, Debug, PartialEq)]
pub struct SvrModel {
    pub(crate) fit: SingleFit,
    pub(crate) dual_coef: Vec<f64>,
    pub(crate) intercept: f64,
    pub(crate) y_mean: f64,
    pub(crate) y_scale: f64,
    pub(crate) epsilon: f64,
    pub(crate) nu: f64,
    pub(crate) params: serde_json::Map<String, serde_json::Value>,
}

impl SvrModel {
    super::single_fit_getters!();

    super::getters! {
        /// Coefficients ν(β′_i − β′_{i+m}) of the support vectors (standardised model).
        dual_coef: &[f64] = dual_coef;
        /// The bias of the standardised model (Σ of the coefficients: the regularised bias).
        intercept: f64 = intercept;
    }

    /// The mean and scale that standardised the targets.
    pub fn y_standardisation(&self) -> (f64, f64) {
        (self.y_mean, self.y_scale)
    }

    super::getters! {
        /// The fitted tube half-width ε, in the units of y.
        epsilon: f64 = epsilon;
        /// The price ν of the tube width used in the fit.
        nu: f64 = nu;
    }

    /// The standardised model's values f(x) (before `y_scale` and `y_mean`).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the feature count differs, [`FwsvmError::NonFinite`]
    /// for NaN or infinite inputs.
    pub fn decision_function<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        self.fit
            .expansion(&self.dual_coef, self.intercept, super::query(x)?)
    }

    /// Predicted targets f(x) · y_scale + y_mean.
    ///
    /// # Errors
    /// As [`Self::decision_function`].
    pub fn predict<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        Ok(self
            .decision_function(x)?
            .into_iter()
            .map(|f| f * self.y_scale + self.y_mean)
            .collect())
    }
}
