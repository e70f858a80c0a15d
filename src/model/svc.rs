//! [`SvcModel`]: a fitted binary SVC (hinge or squared hinge).

use super::KernelExpansion;
use crate::data::{FeatureMatrix, Features};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::solver::{HistoryEntry, SolverStats};

/// A fitted binary classifier f(x) = Σ_s dual_coef_s k(x_s, x) + intercept; class
/// `classes[1]` where f(x) ≥ 0 (paper 000: sign(0) = +1), `classes[0]` elsewhere.
///
/// With the hinge loss (the default) the coefficients are y_s α_s and the intercept LIBSVM's −ρ:
/// the model of ½‖w‖² + C Σ max(0, 1 − y f(x)). With the squared hinge they are scaled by 1/ρ
/// (ρ = αᵀQα, the MEB margin), so (w, b) is the solution of the squared-hinge SVM with
/// regularised bias ½(‖w‖² + b²) + (C/2)Σ max(0, 1 − y f(x))². Either way decision values are
/// on the usual scale (margin support vectors at |f| = 1).
#[derive(Clone, Debug, PartialEq)]
pub struct SvcModel {
    pub(crate) classes: [f64; 2],
    pub(crate) expansion: KernelExpansion,
    pub(crate) support: Vec<usize>,
    pub(crate) n_support: [usize; 2],
    pub(crate) alpha: Vec<f64>,
    pub(crate) stats: SolverStats,
    pub(crate) history: Vec<HistoryEntry>,
}

impl SvcModel {
    /// The two class labels, ascending; the second is the positive class.
    pub fn classes(&self) -> [f64; 2] {
        self.classes
    }

    /// Training indices of the support vectors, negative class first, each class ascending
    /// (scikit-learn's order).
    pub fn support(&self) -> &[usize] {
        &self.support
    }

    /// Number of support vectors.
    pub fn n_support(&self) -> usize {
        self.support.len()
    }

    /// Number of support vectors per class.
    pub fn n_support_per_class(&self) -> [usize; 2] {
        self.n_support
    }

    /// The support vectors, one per row, in the order of [`Self::support`].
    pub fn support_vectors(&self) -> &FeatureMatrix {
        self.expansion.vectors()
    }

    /// Coefficients of the support vectors: y_s α_s (hinge loss) or y_s α_s / ρ (squared hinge).
    pub fn dual_coef(&self) -> &[f64] {
        self.expansion.coef()
    }

    /// The dual weights α_s of the support vectors: in [0, C_s] (hinge loss), or on the simplex
    /// (squared hinge: they sum to 1).
    pub fn alpha(&self) -> &[f64] {
        &self.alpha
    }

    /// The bias: LIBSVM's −ρ (hinge loss) or Σ y_s α_s / ρ (squared hinge).
    pub fn intercept(&self) -> f64 {
        self.expansion.intercept()
    }

    /// The kernel.
    pub fn kernel(&self) -> Kernel {
        self.expansion.kernel()
    }

    /// The kernel expansion behind the decision function.
    pub fn expansion(&self) -> &KernelExpansion {
        &self.expansion
    }

    /// How the solver ran and stopped.
    pub fn stats(&self) -> &SolverStats {
        &self.stats
    }

    /// Per-step history, if it was requested.
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// Decision values f(x) for every row.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`](crate::FwsvmError::InvalidInput) if the feature count differs.
    pub fn decision_function<'x>(&self, x: impl Into<Features<'x>>) -> Result<Vec<f64>> {
        let x = x.into();
        x.check_finite("X")?;
        self.expansion.decision_function(x)
    }

    /// Predicted labels.
    ///
    /// # Errors
    /// As [`Self::decision_function`].
    pub fn predict<'x>(&self, x: impl Into<Features<'x>>) -> Result<Vec<f64>> {
        Ok(self
            .decision_function(x)?
            .into_iter()
            .map(|f| {
                if f >= 0.0 {
                    self.classes[1]
                } else {
                    self.classes[0]
                }
            })
            .collect())
    }
}
