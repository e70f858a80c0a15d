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

use super::line_search::transfer;
use super::scan::{ColumnTerm, Vertices, update_and_scan};
use super::state::State;
use crate::kernel::{Column, ColumnCache};
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
    // In ascending order: the inner steps gather the coreset's rows of a column, and ascending
    // addresses stream from memory where the insertion order missed the cache on every row.
    let coreset = state.sorted.clone();
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
    // Kernel values of the step's two columns at the coreset's rows, gathered once per step so
    // that the partner search and the update run over contiguous arrays (they vectorise).
    let (mut ki, mut kj) = (vec![0.0; p], vec![0.0; p]);
    let max_steps = INNER_STEPS_PER_POINT * p + 1000;
    let mut steps = 0;
    while steps < max_steps && grad[up] - dot > tol {
        let si = cache.fetch(problem.kernel(), sample[up], None);
        gather(cache.column(si), &sample, &mut ki);
        // Second-order partner: the largest exact pairwise gain slope²/(4·curvature), with
        // Q_{r,up} = σ s_r s_up (k + κ) (r ≠ up).
        let Some(down) = coreset_partner(
            &ki,
            &grad,
            &alpha,
            &sign,
            &diag,
            up,
            scale * sign[up],
            shift,
        ) else {
            break;
        };
        let slope = grad[up] - grad[down];
        let curvature = pair_curvature(
            diag[up],
            scale * sign[up],
            sign[down],
            ki[down],
            shift,
            diag[down],
        );
        let Some(lambda) = transfer(&mut alpha, up, down, slope, curvature) else {
            break;
        };
        let sj = cache.fetch(problem.kernel(), sample[down], Some(si));
        gather(cache.column(sj), &sample, &mut kj);
        // ∇g_r −= 2λ(Q_{r,up} − Q_{r,down}), then the next pair search.
        let (wi, wj) = (
            -2.0 * lambda * scale * sign[up],
            2.0 * lambda * scale * sign[down],
        );
        coreset_update(&mut grad, &ki, &kj, &sign, wi, wj, shift);
        grad[up] -= 2.0 * lambda * ridge[up];
        grad[down] += 2.0 * lambda * ridge[down];
        (up, dot) = toward_and_dot(&grad, &alpha);
        steps += 1;
    }
    (alpha, steps)
}

/// `out[r] = column[sample[r]]`, widened to `f64`.
fn gather(column: Column<'_>, sample: &[usize], out: &mut [f64]) {
    match column {
        Column::F64(c) => out.iter_mut().zip(sample).for_each(|(o, &s)| *o = c[s]),
        Column::F32(c) => out
            .iter_mut()
            .zip(sample)
            .for_each(|(o, &s)| *o = f64::from(c[s])),
    }
}

/// Q_up,up − 2Q_up,r + Q_rr with Q_up,r = σ s_up s_r (k(x_up, x_r) + κ); `w_up` = σ s_up.
#[inline(always)]
fn pair_curvature(d_up: f64, w_up: f64, s_r: f64, k: f64, shift: f64, d_r: f64) -> f64 {
    d_up - 2.0 * (w_up * s_r * (k + shift)) + d_r
}

/// Independent lanes of the vectorised loops below.
const LANES: usize = 8;

crate::simd::multiversion! {
    /// The coreset slot r ≠ `up` with α_r > 0 and a positive slope ∇g_up − ∇g_r of the largest
    /// gain slope²/(4·curvature) (infinite when the curvature is not positive; the first slot
    /// on ties), or `None`. `ki` holds k(x_up, x_r), `w_up` = σ s_up.
    fn coreset_partner(
        ki: &[f64],
        grad: &[f64],
        alpha: &[f64],
        sign: &[f64],
        diag: &[f64],
        up: usize,
        w_up: f64,
        shift: f64,
    ) -> Option<usize> {
        let (g_up, d_up) = (grad[up], diag[up]);
        let gain = |k: f64, g: f64, a: f64, s: f64, d: f64| {
            let slope = g_up - g;
            let curvature = pair_curvature(d_up, w_up, s, k, shift, d);
            let gain = if curvature > 0.0 { slope * slope / (4.0 * curvature) } else { f64::INFINITY };
            // −1: not a candidate (the comparisons are false for NaN as well).
            if a > 0.0 && slope > 0.0 { gain } else { -1.0 }
        };
        let mut best = [-1.0f64; LANES];
        let mut at = [usize::MAX; LANES];
        let n = ki.len();
        let full = n / LANES * LANES;
        let lanes = ki[..full]
            .chunks_exact(LANES)
            .zip(grad[..full].chunks_exact(LANES))
            .zip(alpha[..full].chunks_exact(LANES).zip(sign[..full].chunks_exact(LANES)))
            .zip(diag[..full].chunks_exact(LANES));
        for (c, (((k8, g8), (a8, s8)), d8)) in lanes.enumerate() {
            for l in 0..LANES {
                let x = gain(k8[l], g8[l], a8[l], s8[l], d8[l]);
                let wins = x > best[l];
                best[l] = if wins { x } else { best[l] };
                at[l] = if wins { c * LANES + l } else { at[l] };
            }
        }
        for r in full..n {
            let x = gain(ki[r], grad[r], alpha[r], sign[r], diag[r]);
            if x > best[0] {
                (best[0], at[0]) = (x, r);
            }
        }
        // `up` itself has slope 0 and is never a candidate. Across lanes: the largest gain, the
        // first slot on ties (each lane holds the first slot of its own maximum).
        let mut pick: Option<(f64, usize)> = None;
        for l in 0..LANES {
            if best[l] >= 0.0 && pick.is_none_or(|(g, r)| best[l] > g || (best[l] == g && at[l] < r)) {
                pick = Some((best[l], at[l]));
            }
        }
        pick.map(|(_, r)| r)
    }
}

crate::simd::multiversion! {
    /// ∇g_r += s_r (w_i (k_i,r + κ) + w_j (k_j,r + κ)) over the coreset.
    fn coreset_update(grad: &mut [f64], ki: &[f64], kj: &[f64], sign: &[f64], wi: f64, wj: f64, shift: f64) {
        for (((g, &a), &b), &s) in grad.iter_mut().zip(ki).zip(kj).zip(sign) {
            *g += s * (wi * (a + shift) + wj * (b + shift));
        }
    }
}

crate::simd::multiversion! {
    /// argmax_r ∇g_r (the first slot on ties) and αᵀ∇g on the coreset (their difference is the
    /// coreset's duality gap), in independent lanes.
    fn toward_and_dot(grad: &[f64], alpha: &[f64]) -> (usize, f64) {
        let mut top = [f64::NEG_INFINITY; LANES];
        let mut at = [0usize; LANES];
        let mut dot = [0.0f64; LANES];
        let full = grad.len() / LANES * LANES;
        let lanes = grad[..full].chunks_exact(LANES).zip(alpha[..full].chunks_exact(LANES));
        for (c, (g8, a8)) in lanes.enumerate() {
            for l in 0..LANES {
                let wins = g8[l] > top[l];
                top[l] = if wins { g8[l] } else { top[l] };
                at[l] = if wins { c * LANES + l } else { at[l] };
                dot[l] += a8[l] * g8[l];
            }
        }
        for r in full..grad.len() {
            if grad[r] > top[0] {
                (top[0], at[0]) = (grad[r], r);
            }
            dot[0] += alpha[r] * grad[r];
        }
        let mut up = (f64::NEG_INFINITY, 0usize);
        for l in 0..LANES {
            if top[l] > up.0 || (top[l] == up.0 && at[l] < up.1) {
                up = (top[l], at[l]);
            }
        }
        (up.1, dot.iter().sum())
    }
}
