//! `swap` and `swap2o`: paper 002 Algorithms 4 and 5.
//!
//! A pairwise step moves weight λ from an active point j straight to the toward vertex i,
//! d = e_i − e_j, slope ∇g_i − ∇g_j, curvature Q_ii − 2Q_ij + Q_jj. Toward and pairwise steps
//! are chosen by their exact line-search **gains** (a first-order test would always pick the
//! pairwise step, paper 002 §3.1); the pairwise gain used for the decision is *not* clipped to
//! α_j (footnote 6), the executed step is: λ = **min**(λ*, α_j) (erratum D.5), a drop iff the
//! clip binds. `swap2o` picks j by the second-order gain (WSS2), excluding j = i (notes F.5).

use super::engine::Step;
use super::fw::toward_search;
use super::line_search::{LineSearch, exact};
use super::scan::Vertices;
use super::state::State;
use crate::kernel::{Column, ColumnCache};
use crate::problem::SimplexProblem;

/// Chooses between the toward step and the best pairwise step.
pub(crate) fn select(
    problem: &SimplexProblem<'_>,
    state: &State,
    v: &Vertices,
    cache: &mut ColumnCache,
    second_order: bool,
) -> Step {
    let i = v.toward;
    let fw = toward_search(problem, state, v);
    let toward = Step::Toward {
        i,
        lambda: fw.lambda,
    };
    let pair = if second_order {
        second_order_partner(problem, state, i, cache)
    } else {
        first_order_partner(problem, v, cache)
    };
    let Some((j, sw, curvature)) = pair else {
        return toward;
    };
    if sw.gain >= fw.gain && sw.gain > 0.0 {
        let alpha_j = state.alpha[j];
        let drop = sw.lambda >= alpha_j;
        Step::Swap {
            i,
            j,
            lambda: sw.lambda.min(alpha_j),
            drop,
            curvature,
        }
    } else {
        toward
    }
}

/// j = the away vertex (lowest gradient on the coreset).
fn first_order_partner(
    problem: &SimplexProblem<'_>,
    v: &Vertices,
    cache: &ColumnCache,
) -> Option<(usize, LineSearch, f64)> {
    let i = v.toward;
    let j = v.away.filter(|&j| j != i)?;
    let q_ij = match (
        cache.lookup(problem.sample(i)),
        cache.lookup(problem.sample(j)),
    ) {
        (Some(s), _) => problem.q_entry_from_column(j, i, cache.column(s)),
        (None, Some(s)) => problem.q_entry_from_column(i, j, cache.column(s)),
        (None, None) => problem.q_entry(i, j),
    };
    let curvature = problem.q_diag(i) - 2.0 * q_ij + problem.q_diag(j);
    Some((
        j,
        exact(v.toward_grad - v.away_grad, curvature, 1.0),
        curvature,
    ))
}

/// j maximising the exact pairwise gain (∇g_i − ∇g_j)² / (4(Q_ii − 2Q_ij + Q_jj)) over the
/// coreset, using the column of i (which the step will need anyway).
fn second_order_partner(
    problem: &SimplexProblem<'_>,
    state: &State,
    i: usize,
    cache: &mut ColumnCache,
) -> Option<(usize, LineSearch, f64)> {
    let slot = cache.fetch(problem.kernel(), problem.sample(i), None);
    match cache.column(slot) {
        Column::F64(col) => best_partner(problem, state, i, |s| col[s]),
        Column::F32(col) => best_partner(problem, state, i, |s| f64::from(col[s])),
    }
}

/// [`second_order_partner`] with k(x_s, x_i) read by `k_i(s)`: one tight loop over the
/// coreset (Q_ij and Q_jj as `SimplexProblem::q_entry_from_column` and `q_diag` compute them).
#[inline(always)]
fn best_partner(
    problem: &SimplexProblem<'_>,
    state: &State,
    i: usize,
    k_i: impl Fn(usize) -> f64,
) -> Option<(usize, LineSearch, f64)> {
    let m = problem.n_samples();
    let (scale, shift) = (problem.scale(), problem.shift());
    let (lin, signs) = (problem.linear(), problem.signs());
    let diag = problem.kernel().diagonal();
    let gi = state.grad(problem, i);
    let qii = problem.q_diag(i);
    let mut best: Option<(usize, LineSearch, f64)> = None;
    // In ascending order (the result does not depend on it: ties go to the smallest j).
    for &j in &state.sorted {
        if j == i {
            continue;
        }
        let slope = gi - (lin[j] - 2.0 * state.grad_q[j]);
        if !(slope > 0.0) {
            continue;
        }
        let s = if j < m { j } else { j % m };
        let q_ij = scale * (signs[j] * signs[i] * (k_i(s) + shift));
        let q_jj = scale * (diag[s] + shift + problem.ridge(j));
        let curvature = qii - 2.0 * q_ij + q_jj;
        let ls = exact(slope, curvature, 1.0);
        let better = match &best {
            None => true,
            Some((bj, b, _)) => ls.gain > b.gain || (ls.gain == b.gain && j < *bj),
        };
        if better {
            best = Some((j, ls, curvature));
        }
    }
    best
}
