//! [`OneClassModel`]: a fitted minimum enclosing ball (SVDD with squared slacks; see
//! [`crate::problem::one_class`]).

use super::SingleFit;
use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result};
use crate::kernel::{Kernel, KernelMatrix};
use crate::solver::{HistoryEntry, SolverStats};

/// A fitted ball with centre c = Σ α_s φ(x_s) and squared radius R²: `score_samples` is
/// R² − ‖φ(x) − c‖² = 2 Σ α_s k(x_s, x) + (R² − αᵀKα) − k(x, x), positive inside the ball;
/// `decision_function` subtracts `offset` (the ν-quantile of the training scores), and
/// `predict` is +1 (inlier) where that is ≥ 0, −1 elsewhere.
#[derive(Clone, Debug, PartialEq)]
pub struct OneClassModel {
    pub(crate) fit: SingleFit,
    pub(crate) alpha: Vec<f64>,
    pub(crate) score_constant: f64,
    pub(crate) radius: f64,
    pub(crate) offset: f64,
    pub(crate) c: f64,
    pub(crate) params: serde_json::Map<String, serde_json::Value>,
}

impl OneClassModel {
    super::single_fit_getters!();

    super::getters! {
        /// The weights α of the support vectors (they sum to 1).
        alpha: &[f64] = alpha;
        /// R, the radius of the fitted ball.
        radius: f64 = radius;
        /// The threshold subtracted from [`Self::score_samples`] by [`Self::decision_function`].
        offset: f64 = offset;
        /// The penalty C of the squared slacks used in the fit.
        c: f64 = c;
    }

    /// R² − ‖φ(x) − c‖² for every row: positive inside the ball.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the feature count differs, [`FwsvmError::NonFinite`]
    /// for NaN or infinite inputs.
    pub fn score_samples<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let x = super::query(x)?;
        let twice: Vec<f64> = self.alpha.iter().map(|a| 2.0 * a).collect();
        let mut scores = self.fit.expansion(&twice, self.score_constant, x)?;
        let diagonal = KernelMatrix::new(self.fit.kernel, x);
        for (s, k) in scores.iter_mut().zip(diagonal.diagonal()) {
            *s -= k;
        }
        Ok(scores)
    }

    /// `score_samples(x) − offset`: negative for outliers.
    ///
    /// # Errors
    /// As [`Self::score_samples`].
    pub fn decision_function<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let mut scores = self.score_samples(x)?;
        scores.iter_mut().for_each(|s| *s -= self.offset);
        Ok(scores)
    }

    /// +1 for inliers, −1 for outliers.
    ///
    /// # Errors
    /// As [`Self::score_samples`].
    pub fn predict<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        Ok(self
            .decision_function(x)?
            .into_iter()
            .map(|d| if d >= 0.0 { 1.0 } else { -1.0 })
            .collect())
    }
}
