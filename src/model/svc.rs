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

    super::getters! {
        /// The class labels, ascending; for two classes the second is the positive class.
        classes: &[f64] = classes;
        /// Number of classes K.
        n_classes: usize = classes.len();
        /// Training indices of the support vectors, grouped by class (ascending within a class):
        /// scikit-learn's order.
        support: &[usize] = support;
        /// Number of support vectors.
        n_support: usize = support.len();
        /// Number of support vectors per class.
        n_support_per_class: &[usize] = n_support;
        /// The support vectors, one per row, in the order of [`Self::support`].
        support_vectors: &FeatureMatrix = vectors;
        /// Coefficients of the support vectors, a (K−1) × n_SV row-major matrix (two classes: one
        /// row, y_s α_s with the hinge loss or y_s α_s / ρ with the squared hinge).
        dual_coef: &[f64] = dual_coef;
        /// The dual weights α_s of the support vectors of a two-class fit: in [0, C_s] (hinge
        /// loss), or on the simplex (squared hinge: they sum to 1). Empty for one-vs-one models and
        /// models read from a file without them.
        alpha: &[f64] = alpha;
        /// The biases, one per pair of classes (one for two classes): LIBSVM's −ρ (hinge loss) or
        /// Σ y_s α_s / ρ (squared hinge).
        intercept: &[f64] = intercept;
    }

    /// Platt's sigmoid parameters (A, B) per pair of classes in LIBSVM's order, for pair
    /// values positive for the pair's first class (two classes: −[`Self::decision_function`]);
    /// empty unless the model was fitted with probabilities (or read with them).
    pub fn probability_parameters(&self) -> (&[f64], &[f64]) {
        (&self.prob_a, &self.prob_b)
    }

    super::getters! {
        /// The classes (indices into [`Self::classes`]) in the label order of the LIBSVM model
        /// file the model was read from (LIBSVM's order of first appearance in training); empty for
        /// a fitted model (the sorted order). Vote ties and the probabilities' coupling follow it,
        /// as in LIBSVM.
        label_order: &[usize] = label_order;
        /// The kernel.
        kernel: Kernel = kernel;
        /// How each solve ran and stopped: one entry per pair of classes (one for two classes);
        /// empty for a model read from a file.
        stats: &[SolverStats] = stats;
        /// Per-step histories, one per pair of classes, if they were requested.
        history: &[Vec<HistoryEntry>] = history;
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
        self.proba_until(super::query(x)?, Pass::PLAIN)
    }

    /// Decision values: for two classes f(x) for every row (positive: `classes()[1]`); for
    /// K > 2 classes an n × K(K−1)/2 row-major matrix of the pairs' values in the order
    /// (0,1), (0,2), … (positive: the pair's first class). A model with a precomputed kernel
    /// takes kernel values against the training rows.
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] if the feature count differs, [`FwsvmError::NonFinite`]
    /// for NaN or infinite inputs.
    pub fn decision_function<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        self.values_until(super::query(x)?, Pass::PLAIN)
    }

    /// [`Self::decision_function`] of `x` as `pass.query` says its columns are, in row blocks
    /// that `pass.stop` can end ([`FwsvmError::Interrupted`]).
    pub(crate) fn values_until(&self, x: Features<'_>, pass: Pass<'_>) -> Result<Vec<f64>> {
        let Pass { query, stop, .. } = pass;
        let n_sv = self.support.len();
        let unit;
        let (kernel, vectors) = match query {
            Query::Features if self.kernel != Kernel::Precomputed => {
                if self.kernel == Kernel::Linear
                    && let Some(w) = self.linear_weights_if_cheaper(&x)?
                {
                    return linear_values_until(&w, &self.intercept, x, stop);
                }
                (
                    self.kernel,
                    super::widened(self.vectors.view(), x.n_cols())?,
                )
            }
            // The queries are kernel values: the support vectors as unit vectors e_s (s = the
            // training row, or the support vector's position) read them exactly under the
            // linear kernel.
            Query::Features | Query::TrainingKernel => {
                unit = FeatureMatrix::Sparse(super::unit_vectors(&self.support, x.n_cols())?);
                (Kernel::Linear, unit.view())
            }
            Query::SupportKernel => {
                if x.n_cols() != n_sv {
                    return Err(FwsvmError::InvalidInput(format!(
                        "the kernel values have {} columns, but the model has {n_sv} support \
                         vectors",
                        x.n_cols()
                    )));
                }
                let positions: Vec<usize> = (0..n_sv).collect();
                unit = FeatureMatrix::Sparse(super::unit_vectors(&positions, n_sv)?);
                (Kernel::Linear, unit.view())
            }
        };
        super::check_query_features(&x, &vectors)?;
        let (pairs, cost) = (self.intercept.len(), super::row_cost(&vectors));
        super::by_row_blocks(x, pairs, cost, stop, |rows| match self.classes.len() {
            2 => decision_values(kernel, vectors, &self.dual_coef, self.intercept[0], rows),
            _ => ovo_decision_values(
                kernel,
                vectors,
                &self.dual_coef,
                &self.intercept,
                &self.n_support,
                rows,
            ),
        })
    }

    /// The weight vector w of each pair of classes (one row per pair, LIBSVM's order; one row
    /// for two classes) of a linear-kernel model: Σ coef_s x_s over the pair's support vectors,
    /// an n_pairs × n_features row-major matrix (scikit-learn's `coef_`).
    ///
    /// # Errors
    /// [`FwsvmError::InvalidInput`] for another kernel, [`FwsvmError::OutOfMemory`] if the matrix
    /// cannot be allocated.
    pub fn linear_weights(&self) -> Result<Vec<f64>> {
        if self.kernel != Kernel::Linear {
            return Err(FwsvmError::InvalidInput(
                "weights exist for the linear kernel only".into(),
            ));
        }
        let k = self.classes.len();
        let d = self.vectors.view().n_cols();
        let n_pairs = k * (k - 1) / 2;
        let mut w = crate::error::try_filled(n_pairs.saturating_mul(d), 0.0, "linear weights")?;
        let sv = self.vectors.view();
        let n_sv = self.support.len();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(self.n_support.iter().scan(0, |acc, &n| {
                *acc += n;
                Some(*acc)
            }))
            .collect();
        let mut p = 0;
        for i in 0..k {
            for j in (i + 1)..k {
                let row = &mut w[p * d..(p + 1) * d];
                // Pair (i, j): class i's coefficients in row j − 1, class j's in row i (two
                // classes: both in the one row).
                for (class, coef_row) in [(i, j - 1), (j, i)] {
                    let coef = &self.dual_coef[coef_row * n_sv..(coef_row + 1) * n_sv];
                    for s in starts[class]..starts[class + 1] {
                        sv.row_axpy(s, coef[s], row);
                    }
                }
                p += 1;
            }
        }
        Ok(w)
    }

    /// [`Self::linear_weights`] when evaluating them costs less than the expansion (fewer pairs
    /// than support vectors) and they take at most 2²⁴ values; else `None`.
    fn linear_weights_if_cheaper(&self, x: &Features<'_>) -> Result<Option<Vec<f64>>> {
        let k = self.classes.len();
        let n_pairs = k * (k - 1) / 2;
        let d = self.vectors.view().n_cols();
        if n_pairs >= self.support.len() || n_pairs.saturating_mul(d) > 1 << 24 || x.n_rows() == 0 {
            return Ok(None);
        }
        self.linear_weights().map(Some)
    }

    /// Predicted classes as indices into [`Self::classes`] (votes of the pairs for K > 2,
    /// ties to the class listed first in the label order), in row blocks `pass.stop` can end,
    /// with at most `pass.budget` one-vs-one values at once.
    pub(crate) fn predict_until(&self, x: Features<'_>, pass: Pass<'_>) -> Result<Vec<usize>> {
        let k = self.classes.len();
        let mut out = Vec::with_capacity(x.n_rows());
        for_row_chunks(x, k, pass.budget, |rows| {
            let values = self.values_until(rows, pass)?;
            if k == 2 {
                out.extend(values.iter().map(|&f| usize::from(f >= 0.0)));
            } else {
                out.extend(ovo_votes(&values, k, &self.label_order));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Class probabilities (see [`Self::predict_proba`]) in row blocks `pass.stop` can end, with
    /// at most `pass.budget` one-vs-one values at once.
    pub(crate) fn proba_until(&self, x: Features<'_>, pass: Pass<'_>) -> Result<Vec<f64>> {
        if self.prob_a.is_empty() {
            return Err(FwsvmError::InvalidInput(
                "this model has no probabilities: fit it with probability enabled".into(),
            ));
        }
        let k = self.classes.len();
        let n_pairs = k * (k - 1) / 2;
        let mut out = Vec::new();
        crate::error::try_reserve(
            &mut out,
            x.n_rows().saturating_mul(k),
            "class probabilities",
        )?;
        let mut pairwise = vec![0.0; n_pairs];
        let mut probs = vec![0.0; k];
        for_row_chunks(x, k, pass.budget, |rows| {
            let values = self.values_until(rows, pass)?;
            for row in values.chunks(n_pairs) {
                for (p, r) in pairwise.iter_mut().enumerate() {
                    // Pair values positive for the pair's first class (two classes: −f).
                    let f = if k == 2 { -row[p] } else { row[p] };
                    *r = super::probability::sigmoid_predict(f, self.prob_a[p], self.prob_b[p]);
                }
                super::probability::couple(&pairwise, k, &self.label_order, &mut probs);
                out.extend_from_slice(&probs);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Predicted labels.
    ///
    /// # Errors
    /// As [`Self::decision_function`].
    pub fn predict<'x>(
        &self,
        x: impl TryInto<Features<'x>, Error: Into<FwsvmError>>,
    ) -> Result<Vec<f64>> {
        let classes = self.predict_until(super::query(x)?, Pass::PLAIN)?;
        Ok(classes.into_iter().map(|c| self.classes[c]).collect())
    }
}

/// What the columns of a query hold (the kernels given as values reach it from Python only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) enum Query {
    /// Features (kernel values against the training rows for a precomputed kernel).
    Features,
    /// Kernel values against the training rows.
    TrainingKernel,
    /// Kernel values against the support vectors, in the model's order (a kernel function
    /// the caller evaluates).
    SupportKernel,
}

/// The one-vs-one decision values prediction holds at once, at most (128 MB): 1,000 classes
/// have 499,500 pairs, and 2,000 rows' values were 8 GB in one piece.
const CHUNK_VALUES: usize = 1 << 24;

/// How a query is evaluated: what its columns hold, what can stop it between row blocks
/// ([`FwsvmError::Interrupted`]) and how many one-vs-one values it holds at once.
#[derive(Clone, Copy)]
pub(crate) struct Pass<'a> {
    pub query: Query,
    pub stop: &'a dyn Fn() -> bool,
    pub budget: usize,
}

fn never() -> bool {
    false
}

impl Pass<'_> {
    /// Features, never stopped, [`CHUNK_VALUES`] at once.
    pub(crate) const PLAIN: Pass<'static> = Pass {
        query: Query::Features,
        stop: &never,
        budget: CHUNK_VALUES,
    };
}

/// `f(rows)` over consecutive row ranges of `x` small enough that their one-vs-one values
/// (K(K−1)/2 per row) stay below `budget` (at least one row).
fn for_row_chunks(
    x: Features<'_>,
    k: usize,
    budget: usize,
    mut f: impl FnMut(Features<'_>) -> Result<()>,
) -> Result<()> {
    let n_pairs = (k * (k - 1) / 2).max(1);
    let rows = (budget / n_pairs).max(1);
    let mut indptr = Vec::new();
    let mut start = 0;
    while start < x.n_rows() {
        let end = (start + rows).min(x.n_rows());
        f(super::row_blocks::rows_view(&x, start, end, &mut indptr)?)?;
        start = end;
    }
    Ok(())
}

/// x·w_p + intercept_p for every row of `x` and pair p (`w`: one row of weights per pair),
/// in the layout of [`SvcModel::decision_function`], in row blocks `stop` can end.
fn linear_values_until(
    w: &[f64],
    intercept: &[f64],
    x: Features<'_>,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<f64>> {
    let n_pairs = intercept.len();
    let d = x.n_cols();
    if w.len() != n_pairs * d {
        return Err(FwsvmError::InvalidInput(format!(
            "X has {d} features, but the model was trained with {}",
            w.len() / n_pairs.max(1)
        )));
    }
    super::by_row_blocks(x, n_pairs, n_pairs * d.max(1), stop, |rows| {
        let mut out = Vec::with_capacity(rows.n_rows() * n_pairs);
        for r in 0..rows.n_rows() {
            for (p, b) in intercept.iter().enumerate() {
                out.push(rows.row_dot(r, &w[p * d..(p + 1) * d]) + b);
            }
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Svc;

    #[test]
    fn predictions_in_row_chunks_equal_the_whole() {
        // 30 classes (435 pairs): a budget of 500 values makes every row its own chunk.
        let (n, d) = (120, 4);
        let mut state = 7u64;
        let x: Vec<f64> = (0..n * d)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            })
            .collect();
        let y: Vec<f64> = (0..n).map(|i| (i / 4) as f64).collect();
        let rows = crate::data::DenseView::new(&x, n, d).unwrap();
        let model = Svc::params()
            .kernel(Kernel::Rbf { gamma: 0.5 })
            .probability(true)
            .check()
            .unwrap()
            .fit(rows, &y)
            .unwrap();
        let q = Features::Dense(rows);
        let (whole, chunked) = (
            Pass {
                budget: usize::MAX,
                ..Pass::PLAIN
            },
            Pass {
                budget: 500,
                ..Pass::PLAIN
            },
        );
        assert_eq!(
            model.predict_until(q, whole).unwrap(),
            model.predict_until(q, chunked).unwrap()
        );
        assert_eq!(
            model.proba_until(q, whole).unwrap(),
            model.proba_until(q, chunked).unwrap()
        );
    }

    #[test]
    fn sparse_support_vectors_take_queries_with_more_features() {
        // Trained on two features; queries with a third (beyond a LIBSVM file's last index):
        // the values are those of the model widened explicitly (svm-predict's).
        let x = crate::data::CsrMatrix::new(
            vec![0, 2, 3, 5, 6],
            vec![0, 1, 0, 0, 1, 1],
            vec![1.0, 0.5, -1.0, 0.3, 0.2, -0.7],
            2,
        )
        .unwrap();
        let y = [1.0, -1.0, 1.0, -1.0];
        let model = Svc::params()
            .kernel(Kernel::Rbf { gamma: 0.5 })
            .check()
            .unwrap()
            .fit(Features::Sparse(x.view()), &y)
            .unwrap();
        let q = crate::data::CsrMatrix::new(vec![0, 2, 3], vec![0, 2, 1], vec![0.4, 2.0, 1.0], 3)
            .unwrap();
        let got = model.decision_function(Features::Sparse(q.view())).unwrap();
        let mut wide = model.clone();
        if let FeatureMatrix::Sparse(v) = &wide.vectors {
            let (indptr, indices, data) = v.clone().into_parts();
            wide.vectors = FeatureMatrix::Sparse(
                crate::data::CsrMatrix::new(indptr, indices, data, 3).unwrap(),
            );
        }
        let want = wide.decision_function(Features::Sparse(q.view())).unwrap();
        assert_eq!(got, want);
        // The third feature counts (‖x‖² of the rbf kernel): not the two-feature row's value.
        let narrow = crate::data::CsrMatrix::new(vec![0, 1], vec![0], vec![0.4], 2).unwrap();
        let two = model
            .decision_function(Features::Sparse(narrow.view()))
            .unwrap();
        assert_ne!(got[0], two[0]);
    }

    #[test]
    fn linear_weights_give_the_expansion_values() {
        let (n, d) = (60, 3);
        let x: Vec<f64> = (0..n * d)
            .map(|i| ((i * 37 % 11) as f64) / 7.0 - 0.7)
            .collect();
        let y: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
        let rows = crate::data::DenseView::new(&x, n, d).unwrap();
        let model = Svc::params()
            .kernel(Kernel::Linear)
            .check()
            .unwrap()
            .fit(rows, &y)
            .unwrap();
        let via_w = model.decision_function(rows).unwrap();
        let expansion = crate::model::ovo_decision_values(
            Kernel::Linear,
            model.vectors.view(),
            &model.dual_coef,
            &model.intercept,
            &model.n_support,
            Features::Dense(rows),
        )
        .unwrap();
        for (a, b) in via_w.iter().zip(&expansion) {
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }
}
