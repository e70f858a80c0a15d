//! [`SvcModel`]: a fitted SVC, binary or one-vs-one multiclass (hinge or squared hinge).

use super::{decision_values, ovo_decision_values, ovo_votes};
use crate::data::{FeatureMatrix, Features};
use crate::error::{FwsvmError, Result};
use crate::kernel::Kernel;
use crate::solver::{HistoryEntry, SolverStats};

/// A fitted classifier over K ≥ 2 classes in LIBSVM's (and scikit-learn's) layout.
///
/// **Two classes**: f(x) = Σ_s dual_coef_s k(x_s, x) + intercept; class `classes[1]` where
/// f(x) ≥ 0 (paper 000: sign(0) = +1), `classes[0]` elsewhere. With the hinge loss (the
/// default) the coefficients are y_s α_s and the intercept LIBSVM's −ρ: the model of
/// ½‖w‖² + C Σ max(0, 1 − y f(x)). With the squared hinge they are scaled by 1/ρ (ρ = αᵀQα, the
/// MEB margin), so (w, b) is the solution of the squared-hinge SVM with regularised bias
/// ½(‖w‖² + b²) + (C/2)Σ max(0, 1 − y f(x))². Either way decision values are on the usual scale
/// (margin support vectors at |f| = 1).
///
/// **K > 2 classes** (one-vs-one): one such model per pair (i, j), i < j, positive for class
/// i; support vectors grouped by class, `dual_coef` a (K−1) × n_SV matrix where pair (i, j)
/// reads class-i coefficients from row j−1 and class-j coefficients from row i, one intercept
/// per pair in the order (0,1), (0,2), …; each pair votes and the most voted class wins (ties:
/// the lower class).
#[derive(Clone, Debug, PartialEq)]
pub struct SvcModel {
    pub(crate) classes: Vec<f64>,
    pub(crate) kernel: Kernel,
    pub(crate) vectors: FeatureMatrix,
    pub(crate) support: Vec<usize>,
    pub(crate) n_support: Vec<usize>,
    pub(crate) dual_coef: Vec<f64>,
    pub(crate) intercept: Vec<f64>,
    pub(crate) alpha: Vec<f64>,
    /// Platt's A per pair of classes (empty without probabilities).
    pub(crate) prob_a: Vec<f64>,
    /// Platt's B per pair of classes.
    pub(crate) prob_b: Vec<f64>,
    /// The classes in a LIBSVM file's label order (indices into `classes`); empty for the
    /// sorted order. LIBSVM breaks vote ties and sweeps its coupling in this order.
    pub(crate) label_order: Vec<usize>,
    pub(crate) stats: Vec<SolverStats>,
    pub(crate) history: Vec<Vec<HistoryEntry>>,
    /// The hyper-parameters, as the model file spells them (C, loss, tol, ...).
    pub(crate) params: serde_json::Map<String, serde_json::Value>,
}

impl SvcModel {
    /// Checks that the parts agree (LIBSVM's layout; see the type's docs).
    pub(crate) fn check(&self) -> Result<()> {
        let k = self.classes.len();
        let n_sv = self.support.len();
        let bad = |why: String| {
            Err(FwsvmError::InvalidInput(format!(
                "inconsistent SVC model: {why}"
            )))
        };
        if k < 2 || self.n_support.len() != k || self.n_support.iter().sum::<usize>() != n_sv {
            return bad(format!(
                "{k} classes, n_support {:?}, {n_sv} support vectors",
                self.n_support
            ));
        }
        let n_pairs = k * (k - 1) / 2;
        if !(self.prob_a.is_empty() && self.prob_b.is_empty()
            || self.prob_a.len() == n_pairs && self.prob_b.len() == n_pairs)
        {
            return bad(format!(
                "{} probA and {} probB values for {n_pairs} pairs of classes",
                self.prob_a.len(),
                self.prob_b.len()
            ));
        }
        let mut seen = vec![false; k];
        if !self.label_order.is_empty()
            && (self.label_order.len() != k
                || !self
                    .label_order
                    .iter()
                    .all(|&c| c < k && !std::mem::replace(&mut seen[c], true)))
        {
            return bad(format!(
                "label order {:?} is not an order of {k} classes",
                self.label_order
            ));
        }
        if self.vectors.view().n_rows() != n_sv
            || Some(self.dual_coef.len()) != (k - 1).checked_mul(n_sv)
            || self.intercept.len() != k * (k - 1) / 2
        {
            return bad(format!(
                "{} support vectors, {n_sv} indices, {} coefficients, {} intercepts for {k} classes",
                self.vectors.view().n_rows(),
                self.dual_coef.len(),
                self.intercept.len()
            ));
        }
        Ok(())
    }

    /// The class labels, ascending; for two classes the second is the positive class.
    pub fn classes(&self) -> &[f64] {
        &self.classes
    }

    /// Number of classes K.
    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// Training indices of the support vectors, grouped by class (ascending within a class):
    /// scikit-learn's order.
    pub fn support(&self) -> &[usize] {
        &self.support
    }

    /// Number of support vectors.
    pub fn n_support(&self) -> usize {
        self.support.len()
    }

    /// Number of support vectors per class.
    pub fn n_support_per_class(&self) -> &[usize] {
        &self.n_support
    }

    /// The support vectors, one per row, in the order of [`Self::support`].
    pub fn support_vectors(&self) -> &FeatureMatrix {
        &self.vectors
    }

    /// Coefficients of the support vectors, a (K−1) × n_SV row-major matrix (two classes: one
    /// row, y_s α_s with the hinge loss or y_s α_s / ρ with the squared hinge).
    pub fn dual_coef(&self) -> &[f64] {
        &self.dual_coef
    }

    /// The dual weights α_s of the support vectors of a two-class fit: in [0, C_s] (hinge
    /// loss), or on the simplex (squared hinge: they sum to 1). Empty for one-vs-one models and
    /// models read from a file without them.
    pub fn alpha(&self) -> &[f64] {
        &self.alpha
    }

    /// The biases, one per pair of classes (one for two classes): LIBSVM's −ρ (hinge loss) or
    /// Σ y_s α_s / ρ (squared hinge).
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
    }

    /// Platt's sigmoid parameters (A, B) per pair of classes in LIBSVM's order, for pair
    /// values positive for the pair's first class (two classes: −[`Self::decision_function`]);
    /// empty unless the model was fitted with probabilities (or read with them).
    pub fn probability_parameters(&self) -> (&[f64], &[f64]) {
        (&self.prob_a, &self.prob_b)
    }

    /// The classes (indices into [`Self::classes`]) in the label order of the LIBSVM model
    /// file the model was read from (LIBSVM's order of first appearance in training); empty for
    /// a fitted model (the sorted order). Vote ties and the probabilities' coupling follow it,
    /// as in LIBSVM.
    pub fn label_order(&self) -> &[usize] {
        &self.label_order
    }

    /// Class probabilities, an n × K row-major matrix (columns in the order of
    /// [`Self::classes`]; rows sum to 1): Platt's sigmoids of the pairs' decision values
    /// coupled by Wu, Lin & Weng's method 2, as LIBSVM's `-b 1`.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the model has no probabilities, else as
    /// [`Self::decision_function`].
    pub fn predict_proba<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        if self.prob_a.is_empty() {
            return Err(FwsvmError::InvalidInput(
                "this model has no probabilities: fit it with probability enabled".into(),
            ));
        }
        let k = self.classes.len();
        let n_pairs = k * (k - 1) / 2;
        let values = self.decision_function(x)?;
        let n = values.len() / n_pairs;
        let mut out = crate::error::try_filled(n * k, 0.0, "class probabilities")?;
        let mut pairwise = vec![0.0; n_pairs];
        for (row, probs) in out.chunks_mut(k).enumerate() {
            for (p, r) in pairwise.iter_mut().enumerate() {
                // Pair values positive for the pair's first class (two classes: −f).
                let f = values[row * n_pairs + p];
                let f = if k == 2 { -f } else { f };
                *r = super::probability::sigmoid_predict(f, self.prob_a[p], self.prob_b[p]);
            }
            super::probability::couple(&pairwise, k, &self.label_order, probs);
        }
        Ok(out)
    }

    /// The kernel.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// How each solve ran and stopped: one entry per pair of classes (one for two classes);
    /// empty for a model read from a file.
    pub fn stats(&self) -> &[SolverStats] {
        &self.stats
    }

    /// Per-step histories, one per pair of classes, if they were requested.
    pub fn history(&self) -> &[Vec<HistoryEntry>] {
        &self.history
    }

    /// Decision values: for two classes f(x) for every row (positive: `classes()[1]`); for
    /// K > 2 classes an n × K(K−1)/2 row-major matrix of the pairs' values in the order
    /// (0,1), (0,2), … (positive: the pair's first class).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the feature count differs, [`FwsvmError::NonFinite`]
    /// for NaN or infinite inputs.
    pub fn decision_function<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let x = super::query(x)?;
        let unit;
        let (kernel, vectors) = if self.kernel == Kernel::Precomputed {
            // The queries are kernel values against the training rows: the support vectors as
            // unit vectors e_s (s = the training row) read them exactly under the linear kernel.
            unit = FeatureMatrix::Sparse(super::unit_vectors(&self.support, x.n_cols())?);
            (Kernel::Linear, &unit)
        } else {
            (self.kernel, &self.vectors)
        };
        if self.classes.len() == 2 {
            decision_values(
                kernel,
                vectors.view(),
                &self.dual_coef,
                self.intercept[0],
                x,
            )
        } else {
            ovo_decision_values(
                kernel,
                vectors.view(),
                &self.dual_coef,
                &self.intercept,
                &self.n_support,
                x,
            )
        }
    }

    /// Predicted labels.
    ///
    /// # Errors
    /// As [`Self::decision_function`].
    pub fn predict<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let values = self.decision_function(x)?;
        if self.classes.len() == 2 {
            return Ok(values
                .into_iter()
                .map(|f| self.classes[usize::from(f >= 0.0)])
                .collect());
        }
        Ok(ovo_votes(&values, self.classes.len(), &self.label_order)
            .into_iter()
            .map(|c| self.classes[c])
            .collect())
    }
}
