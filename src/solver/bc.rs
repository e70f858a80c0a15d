//! `bc`: fully corrective Frank-Wolfe — the Bădoiu–Clarkson core-set algorithm behind the Core
//! Vector Machine (paper 003 Alg. 1, paper 002 Alg. 2).
//!
//! Each outer step adds the toward vertex i to the coreset S and then maximises g over
//! conv{e_a : a ∈ S} (the problem restricted to the coreset), warm-started from the current α.
//! The inner solver makes pairwise (SMO) steps with second-order partner selection (WSS2, Fan,
//! Chen & Lin 2005) on the coreset only: it reads the coreset rows of cached kernel columns
//! and keeps the gradient on S, O(|S|) per inner step. When the coreset is solved to the inner
//! tolerance (maximal violating pair on S), the accumulated change Δα is applied to the full
//! gradient cache G, one O(m) pass per changed pair of columns — the O(m·|S|) per outer step
//! that makes the fully corrective method expensive on large coresets (paper 002 §2).

use super::scan::{ColumnTerm, Vertices, update_and_scan};
use super::state::State;
use crate::kernel::ColumnCache;
use crate::problem::SimplexProblem;

/// Inner steps allowed per coreset point (plus a constant) before the inner solve gives up and
/// lets the outer loop continue; the outer gap test still decides convergence.
const INNER_STEPS_PER_POINT: usize = 200;

/// One fully corrective step from the toward vertex `v.toward`. Returns the number of inner
/// pairwise steps, or `None` when nothing moved (no step improves g in floating point).
pub(crate) fn corrective_step(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &mut ColumnCache,
    v: &mut Vertices,
    inner_tol: f64,
) -> Option<u64> {
    let newcomer = v.toward;
    let was_active = state.alpha[newcomer] > 0.0;
    state.activate(newcomer);
    let coreset = state.active.clone();
    let old: Vec<f64> = coreset.iter().map(|&a| state.alpha[a]).collect();
    let (alpha, inner) = solve_on_coreset(problem, state, cache, &coreset, inner_tol);
    if inner == 0 {
        if !was_active {
            state.drop_point(newcomer);
        }
        return None;
    }
    // Apply Δα: the new iterate first (the scan needs it), then G two columns per pass.
    let mut deltas: Vec<(usize, f64)> = Vec::new();
    for (r, &a) in coreset.iter().enumerate() {
        if alpha[r] != old[r] {
            deltas.push((a, alpha[r] - old[r]));
        }
        if alpha[r] > 0.0 {
            state.alpha[a] = alpha[r];
        } else {
            state.drop_point(a);
        }
    }
    for pair in deltas.chunks(2) {
        let first = cache.fetch(problem.kernel(), problem.sample(pair[0].0), None);
        let second = pair
            .get(1)
            .map(|&(a, _)| cache.fetch(problem.kernel(), problem.sample(a), Some(first)));
        let mut terms = vec![ColumnTerm {
            coef: pair[0].1,
            slot: pair[0].0,
            column: cache.column(first),
        }];
        if let (Some(s), Some(&(a, d))) = (second, pair.get(1)) {
            terms.push(ColumnTerm {
                coef: d,
                slot: a,
                column: cache.column(s),
            });
        }
        *v = update_and_scan(problem, &mut state.grad_q, &state.alpha, 1.0, &terms);
    }
    state.refresh_scalars(problem);
    Some(inner as u64)
}

/// Maximises g over the coreset from the current weights; returns the new weights (indexed like
/// `coreset`; exact zeros for points that left) and the number of pairwise steps.
fn solve_on_coreset(
    problem: &SimplexProblem<'_>,
    state: &State,
    cache: &mut ColumnCache,
    coreset: &[usize],
    tol: f64,
) -> (Vec<f64>, usize) {
    let p = coreset.len();
    let mut alpha: Vec<f64> = coreset.iter().map(|&a| state.alpha[a]).collect();
    let mut grad: Vec<f64> = coreset.iter().map(|&a| state.grad(problem, a)).collect();
    let diag: Vec<f64> = coreset.iter().map(|&a| problem.q_diag(a)).collect();
    let max_steps = INNER_STEPS_PER_POINT * p + 1000;
    let mut steps = 0;
    while steps < max_steps {
        let mut up = 0;
        for r in 1..p {
            if grad[r] > grad[up] {
                up = r;
            }
        }
        let low = (0..p)
            .filter(|&r| alpha[r] > 0.0)
            .map(|r| grad[r])
            .fold(f64::INFINITY, f64::min);
        if grad[up] - low <= tol {
            break;
        }
        let si = cache.fetch(problem.kernel(), problem.sample(coreset[up]), None);
        // Second-order partner: the largest exact pairwise gain slope²/(4·curvature).
        let mut best: Option<(usize, f64, f64, f64)> = None;
        {
            let col = cache.column(si);
            for r in 0..p {
                if r == up || alpha[r] <= 0.0 {
                    continue;
                }
                let slope = grad[up] - grad[r];
                if !(slope > 0.0) {
                    continue;
                }
                let curvature = diag[up]
                    - 2.0 * problem.q_entry_from_column(coreset[r], coreset[up], col)
                    + diag[r];
                let gain = if curvature > 0.0 {
                    slope * slope / (4.0 * curvature)
                } else {
                    f64::INFINITY
                };
                if best.is_none_or(|(_, g, _, _)| gain > g) {
                    best = Some((r, gain, slope, curvature));
                }
            }
        }
        let Some((down, _, slope, curvature)) = best else {
            break;
        };
        let unclipped = if curvature > 0.0 {
            slope / (2.0 * curvature)
        } else {
            f64::INFINITY
        };
        let lambda = unclipped.min(alpha[down]);
        if !(lambda > 0.0) {
            break;
        }
        alpha[up] += lambda;
        if unclipped >= alpha[down] {
            alpha[down] = 0.0;
        } else {
            alpha[down] -= lambda;
        }
        let sj = cache.fetch(problem.kernel(), problem.sample(coreset[down]), Some(si));
        let (ci, cj) = (cache.column(si), cache.column(sj));
        let (a_up, a_down) = (coreset[up], coreset[down]);
        for (r, &a) in coreset.iter().enumerate() {
            let change = problem.q_entry_from_column(a, a_up, ci)
                - problem.q_entry_from_column(a, a_down, cj);
            grad[r] -= 2.0 * lambda * change;
        }
        steps += 1;
    }
    (alpha, steps)
}
