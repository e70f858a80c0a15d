//! Cross-validation inside the crate: the folds, Platt's probabilities (LIBSVM's `-b 1`,
//! scikit-learn's `probability=True`) and the out-of-fold predictions of `fwsvm train -v n`.
//!
//! Folds are drawn from the fit's seed ([`SolverParams::seed`](crate::SolverParams)), so a
//! fit with probabilities is reproducible and does not depend on the thread count.

use crate::Samples;
use crate::data::{FeatureMatrix, Features};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::model::probability::sigmoid_train;
use crate::params::SvcValidParams;
use crate::random::SplitMix64;
use crate::solver::Monitor;

/// The fold (0..n_folds) of each row, stratified: each class's rows are shuffled and dealt to
/// the folds in turn, continuing across classes, so every fold holds about the same share of
/// each class and the folds' sizes differ by at most one.
pub fn stratified_folds(y: &[f64], n_folds: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..y.len()).collect();
    let mut rng = SplitMix64::new(seed);
    rng.shuffle(&mut order);
    // Stable by class: within a class, the shuffled order.
    order.sort_by(|&a, &b| y[a].total_cmp(&y[b]));
    deal(&order, n_folds)
}

/// The fold of each of `n` rows, shuffled (for regression and one-class models).
pub fn shuffled_folds(n: usize, n_folds: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    SplitMix64::new(seed).shuffle(&mut order);
    deal(&order, n_folds)
}

/// The fold of each row when the rows in `order` (a permutation) are dealt to the folds in turn.
fn deal(order: &[usize], n_folds: usize) -> Vec<usize> {
    let mut fold = vec![0; order.len()];
    for (k, &row) in order.iter().enumerate() {
        fold[row] = k % n_folds.max(1);
    }
    fold
}

/// The copy of `rows` of `x` a fit trains on ([`training_part`]), or `None` when they are all
/// of `x` in order and `x` itself serves.
pub(crate) fn row_subset(x: Features<'_>, kernel: Kernel, rows: &[usize]) -> Option<FeatureMatrix> {
    let whole = rows.len() == x.n_rows() && rows.iter().enumerate().all(|(k, &r)| k == r);
    (!whole).then(|| training_part(x, kernel, rows))
}

/// The training rows of `x` for one fold (a Gram matrix: rows and columns).
pub(crate) fn training_part(x: Features<'_>, kernel: Kernel, train: &[usize]) -> FeatureMatrix {
    if kernel == Kernel::Precomputed {
        x.select_square(train)
    } else {
        x.select_rows(train)
    }
}

/// The test rows of `x` for one fold (a Gram matrix: against the training columns).
pub(crate) fn test_part(
    x: Features<'_>,
    kernel: Kernel,
    test: &[usize],
    train: &[usize],
) -> FeatureMatrix {
    if kernel == Kernel::Precomputed {
        x.select_block(test, train)
    } else {
        x.select_rows(test)
    }
}

impl SvcValidParams {
    /// Platt's sigmoid (A, B) per pair of classes in LIBSVM's order, fitted to decision values
    /// of `n_folds`-fold stratified cross-validation (one model per fold for all pairs; the
    /// folds drawn from the fit's seed). A pair whose two classes are not both in a fold's
    /// training part scores that fold's rows ±1 (or 0), as LIBSVM does. Pair values are
    /// positive for the pair's first class (for two classes −f).
    ///
    /// # Errors
    /// As [`SvcValidParams::fit_weighted`].
    pub fn fit_probability(
        &self,
        data: Samples<'_>,
        n_folds: usize,
        monitor: &mut (dyn Monitor + Send),
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        let (x, y, sample_weight) = (data.x, data.y, data.weights);
        let m = x.n_rows();
        crate::data::check_targets(y, m, Some("labels"))?;
        let classes = super::sorted_classes(y.iter().copied());
        let k = classes.len();
        let class_of = |v: f64| classes.binary_search_by(|c| c.total_cmp(&v)).unwrap_or(0);
        let n_pairs = k * k.saturating_sub(1) / 2;
        let pair_index = |i: usize, j: usize| i * (2 * k - i - 1) / 2 + (j - i - 1);
        let plain = self.without_probability();
        let kernel = self.kernel();
        let n_folds = n_folds.clamp(2, m.max(2));
        let folds = stratified_folds(y, n_folds, self.solver().seed);
        let mut dec = vec![0.0; m * n_pairs];
        for f in 0..n_folds {
            let (train, test): (Vec<usize>, Vec<usize>) = (0..m).partition(|&r| folds[r] != f);
            if test.is_empty() {
                continue;
            }
            let weighted = |r: &usize| sample_weight.is_none_or(|w| w[*r] > 0.0);
            let mut present = vec![false; k];
            train
                .iter()
                .filter(|r| weighted(r))
                .for_each(|&r| present[class_of(y[r])] = true);
            // Pairs missing a class in this fold: +1 (only i seen), −1 (only j) or 0.
            for &r in &test {
                for i in 0..k {
                    for j in (i + 1)..k {
                        dec[r * n_pairs + pair_index(i, j)] = if present[i] {
                            1.0
                        } else if present[j] {
                            -1.0
                        } else {
                            0.0
                        };
                    }
                }
            }
            if present.iter().filter(|&&p| p).count() < 2 {
                continue;
            }
            let sub_x = training_part(x, kernel, &train);
            let sub_y: Vec<f64> = train.iter().map(|&r| y[r]).collect();
            let sub_w: Option<Vec<f64>> =
                sample_weight.map(|w| train.iter().map(|&r| w[r]).collect());
            let part = Samples::new(sub_x.view(), &sub_y).weighted(sub_w.as_deref());
            let model = plain.fit_weighted(part, monitor)?;
            let test_x = test_part(x, kernel, &test, &train);
            let values = model.decision_function(test_x.view())?;
            let seen: Vec<usize> = model.classes().iter().map(|&c| class_of(c)).collect();
            let fold_pairs = seen.len() * (seen.len() - 1) / 2;
            for (t, &r) in test.iter().enumerate() {
                let mut fp = 0;
                for a in 0..seen.len() {
                    for b in (a + 1)..seen.len() {
                        let v = values[t * fold_pairs + fp];
                        // Two classes: the value is positive for the second.
                        let v = if seen.len() == 2 { -v } else { v };
                        dec[r * n_pairs + pair_index(seen[a], seen[b])] = v;
                        fp += 1;
                    }
                }
            }
        }
        let (mut prob_a, mut prob_b) = (Vec::with_capacity(n_pairs), Vec::with_capacity(n_pairs));
        for i in 0..k {
            for j in (i + 1)..k {
                let p = pair_index(i, j);
                let rows: Vec<usize> = (0..m)
                    .filter(|&r| {
                        let c = class_of(y[r]);
                        c == i || c == j
                    })
                    .collect();
                let values: Vec<f64> = rows.iter().map(|&r| dec[r * n_pairs + p]).collect();
                let positive: Vec<bool> = rows.iter().map(|&r| class_of(y[r]) == i).collect();
                let (a, b) = sigmoid_train(&values, &positive);
                prob_a.push(a);
                prob_b.push(b);
            }
        }
        Ok((prob_a, prob_b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stratified_folds_balance_every_class() {
        let y: Vec<f64> = (0..103)
            .map(|i| if i % 10 < 3 { 1.0 } else { 0.0 })
            .collect();
        let folds = stratified_folds(&y, 5, 7);
        for f in 0..5 {
            let size = folds.iter().filter(|&&g| g == f).count();
            assert!((20..=21).contains(&size), "{size}");
            let ones = (0..103).filter(|&r| folds[r] == f && y[r] == 1.0).count();
            assert!((6..=7).contains(&ones), "{ones}");
        }
        assert_eq!(folds, stratified_folds(&y, 5, 7));
        assert_ne!(folds, stratified_folds(&y, 5, 8));
    }
}
