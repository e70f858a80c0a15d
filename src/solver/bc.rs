//! `bc`: fully corrective Frank-Wolfe — the Bădoiu–Clarkson core-set algorithm behind the Core
//! Vector Machine (paper 003 Alg. 1, paper 002 Alg. 2).
//!
//! Each outer step adds the toward vertex i to the coreset S and then maximises g over
//! conv{e_a : a ∈ S} (the problem restricted to the coreset), warm-started from the current α.
//! The inner solver makes pairwise (SMO) steps with second-order partner selection (WSS2, Fan,
//! Chen & Lin 2005) on the coreset only: it reads the coreset rows of cached kernel columns
//! and keeps the gradient on S, O(|S|) per inner step. When the coreset is solved to the inner
//! tolerance (its duality gap on S), the accumulated change Δα is applied to the full
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
/// pairwise steps and of changed weights, or `None` when nothing moved (no step improves g in
/// floating point).
pub(crate) fn corrective_step(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &mut ColumnCache,
    v: &mut Vertices,
    inner_tol: f64,
) -> Option<(u64, usize)> {
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
    Some((inner as u64, deltas.len()))
}

/// Maximises g over the coreset from the current weights until the coreset's duality gap
/// max_S ∇g − αᵀ∇g is at most `tol`; returns the new weights (indexed like `coreset`; exact
/// zeros for points that left) and the number of pairwise steps.
///
/// Two O(|S|) passes per step over gathered coreset rows of two cached columns: the partner
/// search, and the gradient update fused with the next toward search and αᵀ∇g.
fn solve_on_coreset(
    problem: &SimplexProblem<'_>,
    state: &State,
    cache: &mut ColumnCache,
    coreset: &[usize],
    tol: f64,
) -> (Vec<f64>, usize) {
    let p = coreset.len();
    let (scale, shift) = (problem.scale(), problem.shift());
    let sample: Vec<usize> = coreset.iter().map(|&a| problem.sample(a)).collect();
    let sign: Vec<f64> = coreset.iter().map(|&a| problem.signs()[a]).collect();
    let diag: Vec<f64> = coreset.iter().map(|&a| problem.q_diag(a)).collect();
    let ridge: Vec<f64> = coreset.iter().map(|&a| scale * problem.ridge(a)).collect();
    let mut alpha: Vec<f64> = coreset.iter().map(|&a| state.alpha[a]).collect();
    let mut grad: Vec<f64> = coreset.iter().map(|&a| state.grad(problem, a)).collect();
    let (mut up, mut dot) = toward_and_dot(&grad, &alpha);
    let max_steps = INNER_STEPS_PER_POINT * p + 1000;
    let mut steps = 0;
    while steps < max_steps && grad[up] - dot > tol {
        let si = cache.fetch(problem.kernel(), sample[up], None);
        // Second-order partner: the largest exact pairwise gain slope²/(4·curvature), with
        // Q_{r,up} = σ s_r s_up (k + κ) (r ≠ up).
        let mut best: Option<(usize, f64, f64, f64)> = None;
        {
            let col = cache.column(si);
            let w_up = scale * sign[up];
            for r in 0..p {
                if r == up || alpha[r] <= 0.0 {
                    continue;
                }
                let slope = grad[up] - grad[r];
                if !(slope > 0.0) {
                    continue;
                }
                let q = w_up * sign[r] * (col.get(sample[r]) + shift);
                let curvature = diag[up] - 2.0 * q + diag[r];
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
        let sj = cache.fetch(problem.kernel(), sample[down], Some(si));
        let (ci, cj) = (cache.column(si), cache.column(sj));
        // ∇g_r −= 2λ(Q_{r,up} − Q_{r,down}), fused with the next pair search.
        let (wi, wj) = (
            -2.0 * lambda * scale * sign[up],
            2.0 * lambda * scale * sign[down],
        );
        let (mut next_up, mut next_dot) = (0, 0.0);
        for r in 0..p {
            let k = sample[r];
            let mut g = grad[r] + sign[r] * (wi * (ci.get(k) + shift) + wj * (cj.get(k) + shift));
            if r == up {
                g -= 2.0 * lambda * ridge[r];
            } else if r == down {
                g += 2.0 * lambda * ridge[r];
            }
            grad[r] = g;
            if g > grad[next_up] || r == 0 {
                next_up = r;
            }
            next_dot += alpha[r] * g;
        }
        (up, dot) = (next_up, next_dot);
        steps += 1;
    }
    (alpha, steps)
}

/// argmax_r ∇g_r and αᵀ∇g on the coreset (their difference is the coreset's duality gap).
fn toward_and_dot(grad: &[f64], alpha: &[f64]) -> (usize, f64) {
    let mut up = 0;
    let mut dot = 0.0;
    for r in 0..grad.len() {
        if grad[r] > grad[up] {
            up = r;
        }
        dot += alpha[r] * grad[r];
    }
    (up, dot)
}
