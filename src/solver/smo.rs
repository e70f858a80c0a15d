//! The hinge-loss SVC ([`BoxProblem`]): pairwise steps on the polytope {0 ≤ α ≤ C, yᵀα = 0}.
//!
//! A step moves along y_i e_i − y_j e_j, the only directions that keep yᵀα = 0 with two
//! coordinates — the swap step of paper 002 on this polytope, which is SMO (Platt 1998). With
//! the gradient of the minimised dual kept as v_t = −y_t ∇_t = y_t − Σ_s α_s y_s k(x_s, x_t):
//!
//! - the toward vertex i is the largest v over I_up = {y = +1, α < C} ∪ {y = −1, α > 0} (the
//!   coordinates y_t α_t can still grow), and the maximal violation is
//!   max_{I_up} v − min_{I_low} v, I_low the coordinates whose y_t α_t can still shrink; it is
//!   zero exactly at the optimum (the KKT conditions), and the fit stops when it is at most
//!   `tol` (LIBSVM's `-e`, default 1e-3);
//! - the partner j maximises the exact line-search gain (v_i − v_j)²/(k_ii + k_jj − 2k_ij) over
//!   I_low (second-order working-set selection, WSS2: Fan, Chen & Lin, JMLR 2005), which needs
//!   one kernel column, i's;
//! - the step is the exact minimiser along the direction, clipped to the box (LIBSVM's update,
//!   Chang & Lin 2011 §4.1.2), and v ← v − (y_i Δα_i k(·, x_i) + y_j Δα_j k(·, x_j)) is fused
//!   with the search for the next toward vertex and min_{I_low} v in one pass over memory.
//!
//! Membership in I_up and I_low is kept as 0/∓∞ penalties added to v, so both passes are
//! branch-free and vectorise. With an `f32` column cache the gradient is recomputed exactly
//! (one kernel expansion over the support vectors) before convergence is declared. The model's
//! certificate is the duality gap P(w, b) − D(α), reported in the statistics.

use super::engine::Totals;
use super::monitor::Monitor;
use super::tracker::Tracker;
use super::{ExitReason, SolverParams, SolverStats, StepCounts, StepKind};
use crate::error::Result;
use crate::kernel::{CachePrecision, Column};
use crate::parallel::{current_num_threads, map_chunks};
use crate::problem::BoxProblem;

/// The curvature used when k_ii + k_jj − 2k_ij ≤ 0 (LIBSVM's τ).
const TAU: f64 = 1e-12;

/// Slots per vectorised block of a pass.
const BLOCK: usize = 256;

/// Independent accumulators of the block extremes.
const LANES: usize = 8;

/// Minimum slots per parallel task.
const CHUNK: usize = 8192;

/// α of the hinge-loss SVC with its bias and statistics.
#[derive(Clone, Debug)]
pub struct BoxSolution {
    /// α_i ∈ [0, C_i], one per sample, with yᵀα = 0.
    pub alpha: Vec<f64>,
    /// The bias b of f(x) = Σ α_i y_i k(x_i, x) + b (LIBSVM's −ρ).
    pub bias: f64,
    /// Statistics: `gap` is the duality gap P(w, b) − D(α), `objective` the dual objective
    /// Σα − ½αᵀQα, `quadratic` αᵀQα = ‖w‖².
    pub stats: SolverStats,
}

/// Minimises the hinge-loss dual to a maximal violation of at most `params.tol`.
///
/// # Errors
/// [`FwsvmError::InvalidParameter`](crate::FwsvmError::InvalidParameter) for invalid `params`,
/// or whatever the monitor returns (e.g. an interrupt).
pub fn solve_box(
    problem: &BoxProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<BoxSolution> {
    params.validate()?;
    let m = problem.n_samples();
    let y = problem.labels();
    let c = problem.bounds();
    let kernel = problem.kernel();
    let diag = kernel.diagonal();
    let mut tracker = Tracker::new(params, monitor);
    let mut cache = params.column_cache(m);
    let rounded = cache.precision() == CachePrecision::Float32;

    let mut alpha = vec![0.0; m];
    // α = 0: ∇ = −1, v = y.
    let mut v: Vec<f64> = y.to_vec();
    let mut up = vec![0.0; m];
    let mut low = vec![0.0; m];
    for t in 0..m {
        set_penalties(&mut up, &mut low, t, alpha[t], y[t], c[t]);
    }
    let mut ext = pass(&mut v, &up, &low, None);
    let mut steps = StepCounts::default();
    let mut exact = true;
    let mut resyncs = 0;
    let mut objective = 0.0;
    let exit = loop {
        let violation = ext.up_val - ext.low_val;
        if !(violation > params.tol) || ext.up_idx == usize::MAX {
            if exact {
                break ExitReason::Converged;
            }
            // v holds kernel values rounded to f32: recompute it exactly, then test again.
            recompute_gradient(problem, &alpha, &mut v);
            ext = pass(&mut v, &up, &low, None);
            exact = true;
            resyncs += 1;
            continue;
        }
        if tracker.steps_taken.is_multiple_of(64) {
            objective = dual_objective(&alpha, y, &v);
        }
        if let Some(reason) = tracker.checkpoint(
            monitor,
            objective,
            violation,
            0,
            cache.columns_computed(),
        )? {
            break reason;
        }
        let i = ext.up_idx;
        let gmax = ext.up_val;
        let si = cache.fetch(kernel, i, None);
        let Some(j) = partner(cache.column(si), &v, &low, diag, i, gmax) else {
            break ExitReason::Converged;
        };
        let sj = cache.fetch(kernel, j, Some(si));
        let (ci, cj) = (cache.column(si), cache.column(sj));
        let kij = ci.get(j);
        let (old_i, old_j) = (alpha[i], alpha[j]);
        let (gi, gj) = (-y[i] * v[i], -y[j] * v[j]);
        let (new_i, new_j) = pair_update(
            y[i] != y[j],
            diag[i] + diag[j] - 2.0 * kij,
            gi,
            gj,
            old_i,
            old_j,
            c[i],
            c[j],
        );
        alpha[i] = new_i;
        alpha[j] = new_j;
        set_penalties(&mut up, &mut low, i, new_i, y[i], c[i]);
        set_penalties(&mut up, &mut low, j, new_j, y[j], c[j]);
        let (wi, wj) = (y[i] * (new_i - old_i), y[j] * (new_j - old_j));
        if wi == 0.0 && wj == 0.0 {
            // No representable step: the violation is below what double precision resolves.
            break ExitReason::NoProgress;
        }
        ext = pass(&mut v, &up, &low, Some((ci, cj, wi, wj)));
        exact = !rounded;
        // A step that takes a variable to a bound is a "drop" in paper 002's words.
        let bound = |a: f64, ca: f64| a == 0.0 || a == ca;
        let kind = if bound(new_i, c[i]) || bound(new_j, c[j]) {
            StepKind::SwapDrop
        } else {
            StepKind::SwapAdd
        };
        steps.count(kind);
        tracker.record(monitor, &alpha, objective, violation, kind, 0);
    };

    let bias = bias(&alpha, y, c, &v);
    let quadratic: f64 = alpha
        .iter()
        .zip(y)
        .zip(&v)
        .map(|((&a, &yt), &vt)| a * (1.0 - yt * vt))
        .sum();
    let sum_alpha: f64 = alpha.iter().sum();
    let objective = sum_alpha - 0.5 * quadratic;
    let slack: f64 = (0..m)
        .map(|t| c[t] * (y[t] * (v[t] - bias)).max(0.0))
        .sum();
    let primal = 0.5 * quadratic + slack;
    let gap = primal - objective;
    let totals = Totals::of(&cache, m, resyncs);
    let n_active = alpha.iter().filter(|&&a| a > 0.0).count();
    let mut stats = tracker.stats(exit, objective, gap, quadratic, steps, n_active, &totals);
    stats.relative_gap = super::tracker::relative(gap, primal);
    if params.verbose {
        eprintln!(
            "fwsvm: hinge loss, {} after {} steps: dual {:.10e}, duality gap {:.3e} (relative {:.3e}), max violation ≤ {:e}, {} support vectors, {} kernel columns, {:.3} s",
            exit.name(),
            stats.n_iter,
            objective,
            gap,
            stats.relative_gap,
            params.tol,
            n_active,
            stats.columns_computed,
            stats.seconds
        );
    }
    Ok(BoxSolution {
        alpha,
        bias,
        stats,
    })
}

/// Marks slot t's membership in I_up (y_t α_t can grow) and I_low (can shrink) as additive
/// penalties: 0 for a member, −∞ (I_up) or +∞ (I_low) otherwise.
#[inline]
fn set_penalties(up: &mut [f64], low: &mut [f64], t: usize, a: f64, y: f64, c: f64) {
    let (can_grow, can_shrink) = if y > 0.0 {
        (a < c, a > 0.0)
    } else {
        (a > 0.0, a < c)
    };
    up[t] = if can_grow { 0.0 } else { f64::NEG_INFINITY };
    low[t] = if can_shrink { 0.0 } else { f64::INFINITY };
}

/// The two-variable subproblem along y_i e_i − y_j e_j solved exactly and clipped to the box
/// (LIBSVM's `Solver::Solve`, whose case analysis this follows). `g` are the gradients of the
/// minimised dual, `quad` = k_ii + k_jj − 2k_ij. Returns the new (α_i, α_j).
#[allow(clippy::too_many_arguments)]
fn pair_update(
    opposite: bool,
    quad: f64,
    gi: f64,
    gj: f64,
    ai: f64,
    aj: f64,
    ci: f64,
    cj: f64,
) -> (f64, f64) {
    let quad = if quad > 0.0 { quad } else { TAU };
    let (mut ai, mut aj) = (ai, aj);
    if opposite {
        let delta = (-gi - gj) / quad;
        let diff = ai - aj;
        ai += delta;
        aj += delta;
        if diff > 0.0 {
            if aj < 0.0 {
                aj = 0.0;
                ai = diff;
            }
        } else if ai < 0.0 {
            ai = 0.0;
            aj = -diff;
        }
        if diff > ci - cj {
            if ai > ci {
                ai = ci;
                aj = ci - diff;
            }
        } else if aj > cj {
            aj = cj;
            ai = cj + diff;
        }
    } else {
        let delta = (gi - gj) / quad;
        let sum = ai + aj;
        ai -= delta;
        aj += delta;
        if sum > ci {
            if ai > ci {
                ai = ci;
                aj = sum - ci;
            }
        } else if aj < 0.0 {
            aj = 0.0;
            ai = sum;
        }
        if sum > cj {
            if aj > cj {
                aj = cj;
                ai = sum - cj;
            }
        } else if ai < 0.0 {
            ai = 0.0;
            aj = sum;
        }
    }
    (ai, aj)
}

/// The extremes a pass finds: the toward vertex argmax_{I_up} v and min_{I_low} v.
#[derive(Clone, Copy, Debug)]
struct Extremes {
    up_idx: usize,
    up_val: f64,
    low_val: f64,
}

impl Extremes {
    fn empty() -> Self {
        Extremes {
            up_idx: usize::MAX,
            up_val: f64::NEG_INFINITY,
            low_val: f64::INFINITY,
        }
    }

    /// Merges a later chunk (higher indices: ties keep the earlier index).
    fn merge(&mut self, later: Extremes) {
        if later.up_idx != usize::MAX && (self.up_idx == usize::MAX || later.up_val > self.up_val)
        {
            self.up_idx = later.up_idx;
            self.up_val = later.up_val;
        }
        self.low_val = self.low_val.min(later.low_val);
    }
}

/// A pairwise update of v: the columns of i and j and y_i Δα_i, y_j Δα_j.
type Update<'c> = (Column<'c>, Column<'c>, f64, f64);

/// v ← v − (w_i k(·, x_i) + w_j k(·, x_j)) (when `update` is given), fused with the search for
/// argmax_{I_up} v (first index on ties) and min_{I_low} v; in parallel chunks merged in order,
/// so the result does not depend on the thread count.
fn pass(v: &mut [f64], up: &[f64], low: &[f64], update: Option<Update<'_>>) -> Extremes {
    let n = v.len();
    let chunk = n.div_ceil(current_num_threads()).max(CHUNK);
    let work = n * if update.is_some() { 3 } else { 1 };
    let parts = map_chunks(v, chunk, work * 2, |lo, vs| {
        let hi = lo + vs.len();
        let (up, low) = (&up[lo..hi], &low[lo..hi]);
        match update {
            None => scan_chunk(vs, up, low, lo, |_, _| {}),
            Some((Column::F32(ci), Column::F32(cj), wi, wj)) => {
                let (ci, cj) = (&ci[lo..hi], &cj[lo..hi]);
                scan_chunk(vs, up, low, lo, |k, x: &mut f64| {
                    *x -= wi * f64::from(ci[k]) + wj * f64::from(cj[k]);
                })
            }
            Some((Column::F64(ci), Column::F64(cj), wi, wj)) => {
                let (ci, cj) = (&ci[lo..hi], &cj[lo..hi]);
                scan_chunk(vs, up, low, lo, |k, x: &mut f64| {
                    *x -= wi * ci[k] + wj * cj[k];
                })
            }
            Some((ci, cj, wi, wj)) => scan_chunk(vs, up, low, lo, |k, x: &mut f64| {
                *x -= wi * ci.get(lo + k) + wj * cj.get(lo + k);
            }),
        }
    });
    let mut out = Extremes::empty();
    for p in parts {
        out.merge(p);
    }
    out
}

/// One chunk of [`pass`], block by block: the update, then lane-wise extremes (both loops
/// vectorise), and a rescan for the first index only in a block that improves the maximum.
#[inline(always)]
fn scan_chunk(
    v: &mut [f64],
    up: &[f64],
    low: &[f64],
    first: usize,
    update: impl Fn(usize, &mut f64),
) -> Extremes {
    let n = v.len();
    let mut out = Extremes::empty();
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        for k in start..end {
            update(k, &mut v[k]);
        }
        let (vb, ub, lb) = (&v[start..end], &up[start..end], &low[start..end]);
        let mut hi = [f64::NEG_INFINITY; LANES];
        let mut lo = [f64::INFINITY; LANES];
        let len = end - start;
        let full = len / LANES * LANES;
        for r0 in (0..full).step_by(LANES) {
            for l in 0..LANES {
                let x = vb[r0 + l] + ub[r0 + l];
                hi[l] = if x > hi[l] { x } else { hi[l] };
                let z = vb[r0 + l] + lb[r0 + l];
                lo[l] = if z < lo[l] { z } else { lo[l] };
            }
        }
        for r in full..len {
            let x = vb[r] + ub[r];
            hi[0] = if x > hi[0] { x } else { hi[0] };
            let z = vb[r] + lb[r];
            lo[0] = if z < lo[0] { z } else { lo[0] };
        }
        let block_hi = hi
            .iter()
            .fold(f64::NEG_INFINITY, |a, &x| if x > a { x } else { a });
        let block_lo = lo
            .iter()
            .fold(f64::INFINITY, |a, &x| if x < a { x } else { a });
        if block_hi > out.up_val {
            let r = (0..len)
                .find(|&r| vb[r] + ub[r] == block_hi)
                .expect("attained in the block");
            out.up_idx = first + start + r;
            out.up_val = block_hi;
        }
        out.low_val = out.low_val.min(block_lo);
        start = end;
    }
    out
}

/// The second-order partner of the toward vertex i: the j ∈ I_low with v_j < v_i of the largest
/// gain (v_i − v_j)²/(k_ii + k_jj − 2k_ij) (first index on ties), or `None` when there is none.
fn partner(
    col_i: Column<'_>,
    v: &[f64],
    low: &[f64],
    diag: &[f64],
    i: usize,
    gmax: f64,
) -> Option<usize> {
    let j = match col_i {
        Column::F32(c) => best_partner(c, v, low, diag, diag[i], gmax),
        Column::F64(c) => best_partner(c, v, low, diag, diag[i], gmax),
    };
    (j != usize::MAX).then_some(j)
}

/// [`partner`] over one column type, block by block: lane-wise minima of −gain (vectorised),
/// then a rescan for the first index in a block that improves the best.
fn best_partner<T: Copy + Into<f64>>(
    col: &[T],
    v: &[f64],
    low: &[f64],
    diag: &[f64],
    kii: f64,
    gmax: f64,
) -> usize {
    let n = v.len();
    let score = |t: usize| {
        let b = gmax - (v[t] + low[t]);
        let a = kii + diag[t] - 2.0 * col[t].into();
        let a = if a > 0.0 { a } else { TAU };
        if b > 0.0 { -(b * b) / a } else { f64::INFINITY }
    };
    let mut best = (usize::MAX, f64::INFINITY);
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let mut acc = [f64::INFINITY; LANES];
        let full = start + (end - start) / LANES * LANES;
        for t0 in (start..full).step_by(LANES) {
            for l in 0..LANES {
                let s = score(t0 + l);
                acc[l] = if s < acc[l] { s } else { acc[l] };
            }
        }
        for t in full..end {
            let s = score(t);
            acc[0] = if s < acc[0] { s } else { acc[0] };
        }
        let block = acc
            .iter()
            .fold(f64::INFINITY, |a, &x| if x < a { x } else { a });
        if block < best.1 {
            let t = (start..end)
                .find(|&t| score(t) == block)
                .expect("attained in the block");
            best = (t, block);
        }
        start = end;
    }
    best.0
}

/// v_t = y_t − Σ_s α_s y_s k(x_s, x_t) recomputed exactly (`f64`, no cache) as one kernel
/// expansion over the support vectors.
fn recompute_gradient(problem: &BoxProblem<'_>, alpha: &[f64], v: &mut [f64]) {
    let y = problem.labels();
    let support: Vec<usize> = (0..alpha.len()).filter(|&s| alpha[s] > 0.0).collect();
    let coef: Vec<f64> = support.iter().map(|&s| -alpha[s] * y[s]).collect();
    v.copy_from_slice(y);
    let kernel = problem.kernel();
    kernel.add_expansion(&kernel.data(), &support, &coef, v);
}

/// The dual objective Σα − ½αᵀQα, from αᵀQα = Σ α_t (1 − y_t v_t).
fn dual_objective(alpha: &[f64], y: &[f64], v: &[f64]) -> f64 {
    let mut sum = 0.0;
    let mut quad = 0.0;
    for t in 0..alpha.len() {
        if alpha[t] > 0.0 {
            sum += alpha[t];
            quad += alpha[t] * (1.0 - y[t] * v[t]);
        }
    }
    sum - 0.5 * quad
}

/// The bias b = −ρ: the mean of v over free support vectors (0 < α < C), or the middle of the
/// interval the KKT conditions allow when there are none (LIBSVM's `calculate_rho`).
fn bias(alpha: &[f64], y: &[f64], c: &[f64], v: &[f64]) -> f64 {
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut free, mut sum) = (0usize, 0.0);
    for t in 0..alpha.len() {
        // y_t ∇_t = −v_t; ρ is bounded by it at the bounds and equals it on free vectors.
        let yg = -v[t];
        let at_upper = alpha[t] >= c[t];
        let at_lower = alpha[t] <= 0.0;
        if at_upper {
            if y[t] < 0.0 {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        } else if at_lower {
            if y[t] > 0.0 {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        } else {
            free += 1;
            sum += yg;
        }
    }
    let rho = if free > 0 {
        sum / free as f64
    } else {
        0.5 * (ub + lb)
    };
    -rho
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_update_stays_in_the_box_and_keeps_the_equality() {
        // Opposite labels: α_i − α_j is kept; same labels: α_i + α_j.
        for &(opp, gi, gj, ai, aj) in &[
            (true, -1.0, -1.0, 0.0, 0.0),
            (true, -5.0, 3.0, 0.5, 0.2),
            (false, -2.0, 1.0, 0.3, 0.9),
            (false, 4.0, -4.0, 1.0, 0.0),
        ] {
            let (ni, nj) = pair_update(opp, 0.5, gi, gj, ai, aj, 1.0, 1.0);
            assert!((0.0..=1.0).contains(&ni) && (0.0..=1.0).contains(&nj));
            if opp {
                assert!(((ni - nj) - (ai - aj)).abs() < 1e-12);
            } else {
                assert!(((ni + nj) - (ai + aj)).abs() < 1e-12);
            }
        }
    }
}
