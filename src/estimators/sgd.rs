//! `fwsvm.SGDSVC`: linear SVMs by mini-batch SGD on the primal ([`fit_sgd`]) for any number of
//! classes: two classes are one problem (class 1 against class 0), more are fitted
//! one-vs-rest, one problem per class side by side in the fit's threads (problem k seeded with
//! seed + k, so the result does not depend on the number of threads).

use crate::data::Features;
use crate::error::{FwsvmError, Result};
use crate::parallel::map_chunks;
use crate::params::Loss;
use crate::solver::{Monitor, SgdFit, SgdParams, fit_sgd};

/// The class each problem separates from the rest: class 1 for two classes, else each class.
fn positive_classes(n_classes: usize) -> Vec<usize> {
    if n_classes == 2 {
        vec![1]
    } else {
        (0..n_classes).collect()
    }
}

/// ±1 labels of `positive` against the rest, from class indices `y`.
fn one_vs_rest(y: &[f64], positive: usize) -> Vec<f64> {
    y.iter()
        .map(|&c| if c == positive as f64 { 1.0 } else { -1.0 })
        .collect()
}

/// The number of problems of `n_classes` classes: one for two, one per class for more.
pub fn sgd_problems(n_classes: usize) -> usize {
    positive_classes(n_classes).len()
}

/// Fits the problems of class indices `y` (0..`n_classes`, as floats): one [`SgdFit`] per
/// problem, each with its own monitor (`monitors`: [`sgd_problems`] of them).
///
/// # Errors
/// [`FwsvmError::Classes`] for fewer than two classes; [`FwsvmError::InvalidInput`] for a
/// wrong number of monitors; whatever [`fit_sgd`] returns.
pub fn fit_sgd_one_vs_rest<M: Monitor + Send>(
    x: Features<'_>,
    y: &[f64],
    n_classes: usize,
    sample_weight: Option<&[f64]>,
    params: &SgdParams,
    monitors: &mut [M],
) -> Result<Vec<SgdFit>> {
    if n_classes < 2 {
        return Err(FwsvmError::Classes(format!(
            "The number of classes has to be greater than one; got {n_classes} class"
        )));
    }
    let problems = positive_classes(n_classes);
    if monitors.len() != problems.len() {
        return Err(FwsvmError::InvalidInput(format!(
            "{} monitors for {} problems",
            monitors.len(),
            problems.len()
        )));
    }
    let work = problems
        .len()
        .saturating_mul(x.n_rows())
        .saturating_mul(1 << 8);
    map_chunks(monitors, 1, work, |p, monitor| {
        let k = problems[p];
        let params = SgdParams {
            seed: params.seed + k as u64,
            ..params.clone()
        };
        fit_sgd(
            x,
            &one_vs_rest(y, k),
            sample_weight,
            &params,
            &mut monitor[0],
        )
    })
    .into_iter()
    .collect()
}

/// The primal objective ½‖w‖² + C Σ s_i ℓ(y_i (⟨w, x_i⟩ + b)) of each problem of a fitted
/// model (`coef`: one row of X's width per problem, `intercept`: one per problem) on rows `x`
/// with class indices `y` (a label of no class: any other value, e.g. −1).
///
/// # Errors
/// [`FwsvmError::InvalidInput`] for mismatched shapes.
pub fn sgd_objective(
    x: Features<'_>,
    y: &[f64],
    sample_weight: Option<&[f64]>,
    loss: Loss,
    c: f64,
    coef: &[f64],
    intercept: &[f64],
) -> Result<Vec<f64>> {
    let (n, d, k) = (x.n_rows(), x.n_cols(), intercept.len());
    if y.len() != n || coef.len() != k * d || sample_weight.is_some_and(|s| s.len() != n) {
        return Err(FwsvmError::InvalidInput(format!(
            "X is {n} × {d}, y has {} labels, sample_weight {} and the model {} weights for {k} \
             problems",
            y.len(),
            sample_weight.map_or(n, <[f64]>::len),
            coef.len()
        )));
    }
    let rows: Vec<usize> = (0..n).collect();
    let positive = positive_classes(if k == 1 { 2 } else { k });
    Ok((0..k)
        .map(|p| {
            let labels = one_vs_rest(y, positive[p]);
            let w = &coef[p * d..(p + 1) * d];
            let data = crate::solver::SgdData {
                x,
                y: &labels,
                weights: sample_weight,
            };
            crate::solver::sgd_objective(data, loss, c, w, intercept[p], &rows)
        })
        .collect())
}
