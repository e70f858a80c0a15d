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
use super::tracker::{Standing, Tracker};
use super::{ExitReason, HistoryEntry, SolverParams, SolverStats, StepCounts, StepKind};
use crate::error::Result;
use crate::kernel::{
    COLUMN_BLOCK, CachePrecision, Column, ColumnCache, Kernel, KernelMatrix, Terms,
};
use crate::parallel::{current_num_threads, map_chunks, map_ranges};
use crate::problem::BoxProblem;
use crate::simd::{first_in_block, lanes_max, lanes_min, strict_max, strict_min};

/// The curvature used when k_ii + k_jj − 2k_ij ≤ 0 (LIBSVM's τ).
pub(super) const TAU: f64 = 1e-12;

/// Slots per vectorised block of a pass.
const BLOCK: usize = 256;

/// Independent accumulators of the block extremes.
const LANES: usize = 8;

/// Minimum slots per parallel task.
pub(super) const CHUNK: usize = 8192;

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
    /// Per-step history when requested (`gap` holds the maximal violation before the step,
    /// `objective` the dual objective as of the last 64-step mark).
    pub history: Vec<HistoryEntry>,
}

/// Exact refinements near the extremes that may fail to certify before v is recomputed on
/// every row (see [`solve_box`]).
const MAX_REFINEMENTS: usize = 3;

/// Problems with fewer samples are not shrunk.
const SHRINK_MIN_SAMPLES: usize = 2000;

/// Steps between two shrinking checks.
const SHRINK_EVERY: u64 = 1000;

/// Smaller problems nested inside one another, at most (each keeps at most three quarters of
/// its parent's rows, so the copies of the data sum to at most 4m rows). A level may shrink
/// again after its smaller problem returned: after a rejoin the few violators are solved on a
/// small problem again instead of by steps over all rows (checkerboard 10⁶ × 2 at C 10 spent
/// half its fit on levels of 10⁵–10⁶ rows once a global budget of ten shrinks ran out).
const MAX_DEPTH: usize = 10;

/// What the levels of one solve share: limits and history, step counts, cache statistics, the
/// rounding bound and the shrinking budget.
pub(super) struct Context<'t, 'p, 'm> {
    pub(super) params: &'p SolverParams,
    pub(super) tracker: Tracker<'t>,
    pub(super) monitor: &'m mut (dyn Monitor + Send),
    pub(super) steps: StepCounts,
    pub(super) totals: Totals,
    /// Bound on |v − v_exact| from f32-rounded kernel values (see [`solve_box`]).
    pub(super) drift: f64,
    /// How many more smaller problems may nest inside the current level.
    pub(super) shrinks_left: usize,
    pub(super) shrinks: u64,
    pub(super) rejoins: u64,
}

/// The bound on |v − v_exact| that one unit of |y Δα| adds with the cache's precision: each
/// f32 value errs by at most [`KernelMatrix::f32_error`] · 2⁻²⁴ k_max (|k_ij| ≤ max_t k_tt for
/// a positive semi-definite kernel; sigmoid values are at most 1); nothing with f64 columns.
pub(super) fn rounding_per_weight(cache: &ColumnCache, kernel: &KernelMatrix<'_>) -> f64 {
    let k_max = kernel
        .diagonal()
        .iter()
        .fold(1.0f64, |a, &d| a.max(d.abs()));
    if cache.precision() == CachePrecision::Float32 {
        k_max * kernel.f32_error() * 2f64.powi(-24)
    } else {
        0.0
    }
}

/// Minimises the hinge-loss dual to a maximal violation of at most `params.tol`.
///
/// With `params.shrinking` (and at least a few thousand samples) the variables that sit at a
/// bound and cannot be chosen by the next steps (LIBSVM's rule: in I_up only with v below
/// min_{I_low} v, or in I_low only with v above max_{I_up} v) leave the problem once they are a
/// quarter of it: the kept rows form a smaller problem with its own cache of shorter columns,
/// the left-out variables keep their bounds, and when the smaller problem converges their
/// gradient is updated exactly (one kernel expansion over the variables that moved) and the
/// violation is tested on every row again; violators continue the fit on the larger problem.
///
/// # Errors
/// [`FwsvmError::InvalidParameter`](crate::FwsvmError::InvalidParameter) for invalid `params`,
/// or whatever the monitor returns (e.g. an interrupt).
pub fn solve_box(
    problem: &BoxProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<BoxSolution> {
    let m = problem.n_samples();
    params.validate()?;
    let y = problem.labels();
    let c = problem.bounds();
    let tracker = Tracker::new(params, monitor);
    let mut ctx = Context {
        params,
        tracker,
        monitor,
        steps: StepCounts::default(),
        totals: Totals::default(),
        drift: 0.0,
        // A precomputed kernel's rows are kernel values: they cannot be restricted to a subset
        // of samples by selecting rows, so it is not shrunk.
        shrinks_left: if params.shrinking
            && m >= SHRINK_MIN_SAMPLES
            && problem.kernel().kernel() != Kernel::Precomputed
        {
            MAX_DEPTH
        } else {
            0
        },
        shrinks: 0,
        rejoins: 0,
    };
    let mut alpha = match &params.warm_start {
        Some(w) => feasible_start(w, y, c)?,
        None => vec![0.0; m],
    };
    // v = y − Σ α_s y_s k(x_s, ·): y itself at α = 0.
    let mut v: Vec<f64> = y.to_vec();
    if alpha.iter().any(|&a| a > 0.0) {
        recompute_gradient(problem, &alpha, &mut v);
    }
    let mut refinements = 0;
    let exit = loop {
        let exit = run(problem, &mut alpha, &mut v, &mut ctx)?;
        // Converged on v with rounded kernel values: certified when the rounding cannot hide a
        // violation above tol (2·drift bounds the error of a difference of two v). Otherwise v
        // is made exact on the rows that could hold an extreme (and the support vectors), which
        // certifies or shows violators; the steps then go on from there, since the other rows
        // stay within the drift. A full recompute (#SV × m kernel values, as many as the fit
        // needs columns) clears the drift after a few refinements that did not certify.
        if exit != ExitReason::Converged || 2.0 * ctx.drift <= 0.1 * params.tol {
            break exit;
        }
        ctx.totals.resyncs += 1;
        refinements += 1;
        let (exact, all_rows) = refine_near_extremes(problem, &alpha, &mut v, &mut ctx);
        if exact <= params.tol {
            break exit;
        }
        if all_rows {
            ctx.drift = 0.0;
        } else if refinements >= MAX_REFINEMENTS {
            ctx.totals.evaluations += recompute_gradient(problem, &alpha, &mut v);
            ctx.drift = 0.0;
        }
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
    let slack: f64 = (0..m).map(|t| c[t] * (y[t] * (v[t] - bias)).max(0.0)).sum();
    let primal = 0.5 * quadratic + slack;
    let gap = primal - objective;
    let n_active = alpha.iter().filter(|&&a| a > 0.0).count();
    // The history's measure is the largest KKT violation (what the steps compare with tol).
    ctx.tracker
        .close(objective, violation(&alpha, y, c, &v), n_active);
    let mut stats = ctx.tracker.stats(
        exit,
        objective,
        gap,
        quadratic,
        ctx.steps,
        n_active,
        &ctx.totals,
    );
    stats.relative_gap = super::tracker::relative(gap, primal);
    stats.shrinks = ctx.shrinks;
    stats.rejoins = ctx.rejoins;
    if params.verbose {
        ctx.monitor.log(&format!(
            "hinge loss, {} after {} steps: dual {:.10e}, duality gap {:.3e} (relative {:.3e}), max violation ≤ {:e}, {} support vectors, {} kernel columns, {} shrinks, {:.3} s",
            exit.name(),
            stats.n_iter,
            objective,
            gap,
            stats.relative_gap,
            params.tol,
            n_active,
            stats.columns_computed,
            stats.shrinks,
            stats.seconds
        ));
    }
    Ok(BoxSolution {
        alpha,
        bias,
        stats,
        history: ctx.tracker.history,
    })
}

/// A feasible α from warm-start weights `w` (one per sample, non-negative): each class scaled
/// to the smaller of the two class sums (so yᵀα = 0), then both together until every α_i ≤ C_i.
/// Weights from a fit at another C (scaled by C_new/C_old, as `fwsvm.SVC` does) come back
/// unchanged when they fit the box; all-zero or one-class weights give the cold start α = 0.
fn feasible_start(w: &[f64], y: &[f64], c: &[f64]) -> Result<Vec<f64>> {
    if w.len() != y.len() {
        return Err(crate::error::FwsvmError::param(
            "warm_start",
            format!("has {} weights but there are {} samples", w.len(), y.len()),
        ));
    }
    let (pos, neg) = crate::problem::class_totals(y, w);
    let target = pos.min(neg);
    if !(target > 0.0 && target.is_finite()) {
        return Ok(vec![0.0; y.len()]);
    }
    let mut alpha: Vec<f64> = w
        .iter()
        .zip(y)
        .map(|(&wi, &yi)| wi * target / if yi > 0.0 { pos } else { neg })
        .collect();
    let excess = alpha
        .iter()
        .zip(c)
        .fold(1.0f64, |r, (&a, &ci)| r.max(a / ci));
    if excess > 1.0 {
        alpha.iter_mut().for_each(|a| *a /= excess);
    }
    // Exact bounds: a weight that reached its bound is set to it (and never above it).
    for (a, &ci) in alpha.iter_mut().zip(c) {
        *a = a.clamp(0.0, ci);
    }
    Ok(alpha)
}

/// The maximal violation max_{I_up} v − min_{I_low} v, computed afresh.
fn violation(alpha: &[f64], y: &[f64], c: &[f64], v: &[f64]) -> f64 {
    let (hi, lo) = extremes(alpha, y, c, v, 0..alpha.len());
    hi - lo
}

/// The pairwise steps on one problem (the full one, or the rows kept by shrinking), from α and
/// v = y − Σ α_s y_s k(x_s, ·) on its rows (including the contribution of variables outside
/// it, which stay fixed), until the violation on its rows is at most `tol` or a limit is hit.
fn run(
    problem: &BoxProblem<'_>,
    alpha: &mut [f64],
    v: &mut [f64],
    ctx: &mut Context<'_, '_, '_>,
) -> Result<ExitReason> {
    let cache = ctx.params.column_cache(problem.n_samples());
    let q = super::smo_blocked::working_set_size(problem, ctx.params, cache.capacity());
    if q > 0 {
        super::smo_blocked::run_blocked(problem, alpha, v, ctx, cache, q)
    } else {
        run_pairs(problem, alpha, v, ctx, cache)
    }
}

/// [`run`] by pairwise steps, each on the full gradient of the level.
fn run_pairs(
    problem: &BoxProblem<'_>,
    alpha: &mut [f64],
    v: &mut [f64],
    ctx: &mut Context<'_, '_, '_>,
    cache: ColumnCache,
) -> Result<ExitReason> {
    let m = problem.n_samples();
    let y = problem.labels();
    let c = problem.bounds();
    let kernel = problem.kernel();
    let diag = kernel.diagonal();
    let per_weight = rounding_per_weight(&cache, kernel);
    let mut level = Level::new(problem, alpha, v, cache, ctx);
    let mut objective = 0.0;
    // Support vectors of this level, refreshed with the objective (for progress reports).
    let mut n_sv = 0;
    let blocks = kernel.blocks_pay();
    let exit = loop {
        if ctx.tracker.steps_taken.is_multiple_of(64) {
            objective = dual_objective(alpha, y, v);
            n_sv = alpha.iter().filter(|&&a| a > 0.0).count();
        }
        let violation = match level.open(problem, alpha, v, ctx, (objective, n_sv), false)? {
            Opened::Go(violation) => violation,
            Opened::Shrunk => continue,
            Opened::Stop(reason) => break reason,
        };
        let (up, low, ext, cache) = level.parts_mut();
        let i = ext.up_idx;
        let gmax = ext.up_val;
        // Where several columns cost about one (sparse or wide data: the pass over the data is
        // the cost), a missing column comes with those of the next likely toward vertices and
        // partners.
        let likely = |cache: &ColumnCache, skip: usize| {
            if blocks {
                likely_columns(v, up, low, cache, skip)
            } else {
                Vec::new()
            }
        };
        let si = match cache.lookup(i) {
            Some(_) => cache.fetch(kernel, i, None),
            None => {
                let extra = likely(cache, i);
                cache.fetch_with(kernel, i, &extra, None)
            }
        };
        let Some(j) = partner(cache.column(si), v, low, diag, i, gmax) else {
            break ExitReason::Converged;
        };
        let sj = match cache.lookup(j) {
            Some(_) => cache.fetch(kernel, j, Some(si)),
            None => {
                let extra = likely(cache, j);
                cache.fetch_with(kernel, j, &extra, Some(si))
            }
        };
        let (ci, cj) = (cache.column(si), cache.column(sj));
        let kij = ci.get(j);
        let ((new_i, new_j), (wi, wj)) = pair_step(
            (y[i], y[j]),
            diag[i] + diag[j] - 2.0 * kij,
            (-y[i] * v[i], -y[j] * v[j]),
            (alpha[i], alpha[j]),
            (c[i], c[j]),
        );
        alpha[i] = new_i;
        alpha[j] = new_j;
        set_penalties(up, low, i, new_i, y[i], c[i]);
        set_penalties(up, low, j, new_j, y[j], c[j]);
        if wi == 0.0 && wj == 0.0 {
            // No representable step: the violation is below what double precision resolves.
            break ExitReason::NoProgress;
        }
        *ext = pass(v, up, low, Some((ci, cj, wi, wj)));
        ctx.drift += per_weight * (wi.abs() + wj.abs());
        let kind = step_kind(new_i, c[i], new_j, c[j]);
        ctx.steps.count(kind);
        ctx.tracker
            .record(ctx.monitor, alpha, objective, violation, kind, 0);
    };
    ctx.totals.merge(&Totals::of(&level.cache, m, 0));
    Ok(exit)
}

/// A pairwise step's kind: one that takes a variable to a bound is a "drop" in paper 002's
/// words.
pub(super) fn step_kind(new_i: f64, c_i: f64, new_j: f64, c_j: f64) -> StepKind {
    let bound = |a: f64, ca: f64| a == 0.0 || a == ca;
    if bound(new_i, c_i) || bound(new_j, c_j) {
        StepKind::SwapDrop
    } else {
        StepKind::SwapAdd
    }
}

/// What a level (the full problem, or the rows kept by shrinking) keeps between steps: the
/// I_up / I_low penalties, the extremes of the last pass, its column cache and when shrinking
/// is next checked.
pub(super) struct Level {
    pub(super) up: Vec<f64>,
    pub(super) low: Vec<f64>,
    pub(super) ext: Extremes,
    pub(super) cache: ColumnCache,
    next_shrink: u64,
}

/// What the checks that open a step (or a blocked round) decided ([`Level::open`]).
pub(super) enum Opened {
    /// Go on: the level's maximal violation, above tol.
    Go(f64),
    /// The level shrank and its smaller problem was solved: open again.
    Shrunk,
    /// Stop for this reason (converged, a limit, an interrupt).
    Stop(ExitReason),
}

/// What a shrinking check did.
enum Shrunk {
    /// Not due, or too few variables could leave.
    No,
    /// The kept rows were solved as a smaller problem; the level's penalties and extremes are
    /// refreshed from the exact gradient of every row.
    Solved,
    /// The smaller problem stopped for this reason (a limit or an interrupt).
    Stop(ExitReason),
}

impl Level {
    /// The penalties, extremes and cache borrowed apart, for a step that reads the first three
    /// while it fetches columns.
    pub(super) fn parts_mut(
        &mut self,
    ) -> (
        &mut Vec<f64>,
        &mut Vec<f64>,
        &mut Extremes,
        &mut ColumnCache,
    ) {
        (&mut self.up, &mut self.low, &mut self.ext, &mut self.cache)
    }
    /// The level of `problem` at α and v: penalties and extremes from them, the first
    /// shrinking check [`SHRINK_EVERY`] steps on.
    pub(super) fn new(
        problem: &BoxProblem<'_>,
        alpha: &[f64],
        v: &mut [f64],
        cache: ColumnCache,
        ctx: &Context<'_, '_, '_>,
    ) -> Level {
        let m = problem.n_samples();
        let mut level = Level {
            up: vec![0.0; m],
            low: vec![0.0; m],
            ext: Extremes::empty(),
            cache,
            next_shrink: ctx.tracker.steps_taken + SHRINK_EVERY,
        };
        level.refresh(problem, alpha, v);
        level
    }

    /// Penalties of every row from α, and the extremes of v.
    fn refresh(&mut self, problem: &BoxProblem<'_>, alpha: &[f64], v: &mut [f64]) {
        let (y, c) = (problem.labels(), problem.bounds());
        for t in 0..alpha.len() {
            set_penalties(&mut self.up, &mut self.low, t, alpha[t], y[t], c[t]);
        }
        self.ext = pass(v, &self.up, &self.low, None);
    }

    /// The maximal violation of the last pass while it is above `tol` (`None`: converged).
    fn violation(&self, tol: f64) -> Option<f64> {
        let violation = self.ext.up_val - self.ext.low_val;
        (violation > tol && self.ext.up_idx != usize::MAX).then_some(violation)
    }

    /// The checks that open a step, or a blocked round (`round`): convergence on the level,
    /// `max_iter`, the clock and the monitor (`objective` and `n_sv` for its progress; every
    /// round, or every few steps as [`Tracker::checkpoint`] does), then shrinking when due.
    pub(super) fn open(
        &mut self,
        problem: &BoxProblem<'_>,
        alpha: &mut [f64],
        v: &mut [f64],
        ctx: &mut Context<'_, '_, '_>,
        (objective, n_sv): (f64, usize),
        round: bool,
    ) -> Result<Opened> {
        let Some(violation) = self.violation(ctx.params.tol) else {
            return Ok(Opened::Stop(ExitReason::Converged));
        };
        let now = Standing {
            objective,
            gap: violation,
            coreset_size: n_sv,
            columns: self.cache.columns_computed(),
        };
        let limit = if !round {
            ctx.tracker.checkpoint(ctx.monitor, now)?
        } else if ctx
            .params
            .max_iter
            .is_some_and(|k| ctx.tracker.steps_taken >= k)
        {
            Some(ExitReason::MaxIterations)
        } else {
            ctx.tracker.poll(ctx.monitor, now)?
        };
        if let Some(reason) = limit {
            return Ok(Opened::Stop(reason));
        }
        Ok(match self.shrink_if_due(problem, alpha, v, ctx)? {
            Shrunk::No => Opened::Go(violation),
            Shrunk::Solved => Opened::Shrunk,
            Shrunk::Stop(reason) => Opened::Stop(reason),
        })
    }

    /// Shrinks when due (every [`SHRINK_EVERY`] steps while the budget lasts): the variables
    /// that can leave by LIBSVM's rule ([`can_leave`]) are left out once they are a quarter of
    /// the level, the kept rows are solved as a smaller problem ([`solve_kept`]) with this
    /// level's cache released first, and the level's penalties and extremes are refreshed.
    fn shrink_if_due(
        &mut self,
        problem: &BoxProblem<'_>,
        alpha: &mut [f64],
        v: &mut [f64],
        ctx: &mut Context<'_, '_, '_>,
    ) -> Result<Shrunk> {
        if ctx.shrinks_left == 0 || ctx.tracker.steps_taken < self.next_shrink {
            return Ok(Shrunk::No);
        }
        let params = ctx.params;
        let m = problem.n_samples();
        self.next_shrink = ctx.tracker.steps_taken + SHRINK_EVERY;
        let kept: Vec<usize> = (0..m)
            .filter(|&t| !can_leave(self.up[t], self.low[t], v[t], &self.ext))
            .collect();
        if kept.len() * 4 > 3 * m {
            return Ok(Shrunk::No);
        }
        ctx.shrinks_left -= 1;
        ctx.shrinks += 1;
        if params.verbose {
            ctx.monitor
                .log(&format!("shrinking to {} of {m} samples", kept.len()));
        }
        // One cache at a time: this level's columns go before the smaller problem fills its
        // own (cache_size bounds the fit's columns at every depth).
        ctx.totals.merge(&Totals::of(&self.cache, m, 0));
        // The left-out rows are updated with this level's precision (and the same charge).
        let per_weight = rounding_per_weight(&self.cache, problem.kernel());
        self.cache = params.column_cache(m);
        let reason = solve_kept(problem, alpha, v, &kept, per_weight, ctx);
        ctx.shrinks_left += 1;
        let reason = reason?;
        if reason != ExitReason::Converged {
            return Ok(Shrunk::Stop(reason));
        }
        self.refresh(problem, alpha, v);
        if self.violation(params.tol).is_some() {
            ctx.rejoins += 1;
        }
        Ok(Shrunk::Solved)
    }
}

/// Solves the problem restricted to the rows `kept` (the others keep their α), then brings v
/// of the left-out rows up to date: v_r −= Σ_s Δα_s y_s k(x_s, x_r) over the kept variables
/// that moved, exactly when `per_weight` (the level's [`rounding_per_weight`]) is 0, else
/// with `f32` kernel values (half the cost of the exp) whose error is charged to the drift
/// as the steps' is: per_weight · Σ_s |Δα_s|.
fn solve_kept(
    problem: &BoxProblem<'_>,
    alpha: &mut [f64],
    v: &mut [f64],
    kept: &[usize],
    per_weight: f64,
    ctx: &mut Context<'_, '_, '_>,
) -> Result<ExitReason> {
    let data = problem.kernel().data();
    let y = problem.labels();
    let kept_data = data.select_rows(kept);
    let sub = BoxProblem::hinge_svc(
        KernelMatrix::new(problem.kernel().kernel(), kept_data.view()),
        &kept.iter().map(|&t| y[t]).collect::<Vec<_>>(),
        &kept
            .iter()
            .map(|&t| problem.bounds()[t])
            .collect::<Vec<_>>(),
    )?;
    let old: Vec<f64> = kept.iter().map(|&t| alpha[t]).collect();
    let mut sub_alpha = old.clone();
    let mut sub_v: Vec<f64> = kept.iter().map(|&t| v[t]).collect();
    let reason = run(&sub, &mut sub_alpha, &mut sub_v, ctx)?;
    let mut moved = Vec::new();
    let mut coef = Vec::new();
    for (k, &t) in kept.iter().enumerate() {
        alpha[t] = sub_alpha[k];
        v[t] = sub_v[k];
        if sub_alpha[k] != old[k] {
            moved.push(t);
            coef.push(-(sub_alpha[k] - old[k]) * y[t]);
        }
    }
    let mut inside = vec![false; problem.n_samples()];
    kept.iter().for_each(|&t| inside[t] = true);
    let outside: Vec<usize> = (0..inside.len()).filter(|&t| !inside[t]).collect();
    if !moved.is_empty() && !outside.is_empty() {
        let started = std::time::Instant::now();
        let outside_data = data.select_rows(&outside);
        let mut delta = vec![0.0; outside.len()];
        let outside_kernel = KernelMatrix::new(problem.kernel().kernel(), outside_data.view());
        if per_weight > 0.0 {
            outside_kernel.add_expansion_rounded(Terms::new(&data, &moved, &coef), &mut delta);
            ctx.drift += per_weight * coef.iter().map(|w| w.abs()).sum::<f64>();
        } else {
            outside_kernel.add_expansion(Terms::new(&data, &moved, &coef), &mut delta);
        }
        ctx.totals.evaluations += (outside.len() * moved.len()) as u64;
        for (k, &t) in outside.iter().enumerate() {
            v[t] += delta[k];
        }
        if ctx.params.verbose {
            ctx.monitor.log(&format!(
                "rows left out of {} updated from {} moved variables in {:.2} s",
                outside.len(),
                moved.len(),
                started.elapsed().as_secs_f64()
            ));
        }
    }
    Ok(reason)
}

/// LIBSVM's shrinking rule: a variable at a bound that no step can choose now — in I_up only
/// with v below min_{I_low} v, or in I_low only with v above max_{I_up} v.
fn can_leave(up: f64, low: f64, v: f64, ext: &Extremes) -> bool {
    let only_up = up == 0.0 && low != 0.0;
    let only_low = low == 0.0 && up != 0.0;
    (only_up && v < ext.low_val) || (only_low && v > ext.up_val)
}

/// Uncached samples whose columns the next steps will probably ask for: the largest v over
/// I_up (the next toward vertices) and the smallest over I_low (their partners), at most
/// [`COLUMN_BLOCK`] − 1 in all, `skip` (the column being fetched) excluded.
fn likely_columns(
    v: &[f64],
    up: &[f64],
    low: &[f64],
    cache: &ColumnCache,
    skip: usize,
) -> Vec<usize> {
    const TOWARD: usize = COLUMN_BLOCK / 2;
    const PARTNER: usize = COLUMN_BLOCK - 1 - TOWARD;
    // Small sorted lists (value, index): the best first.
    let mut toward: Vec<(f64, usize)> = Vec::with_capacity(TOWARD + 1);
    let mut partner: Vec<(f64, usize)> = Vec::with_capacity(PARTNER + 1);
    let insert = |list: &mut Vec<(f64, usize)>, key: f64, t: usize, cap: usize| {
        if list.len() == cap && key >= list[cap - 1].0 {
            return;
        }
        let at = list.partition_point(|&(k, _)| k <= key);
        list.insert(at, (key, t));
        list.truncate(cap);
    };
    for t in 0..v.len() {
        let (hi, lo) = (v[t] + up[t], v[t] + low[t]);
        let bar_hi = if toward.len() == TOWARD {
            -toward[TOWARD - 1].0
        } else {
            f64::NEG_INFINITY
        };
        let bar_lo = if partner.len() == PARTNER {
            partner[PARTNER - 1].0
        } else {
            f64::INFINITY
        };
        if (hi > bar_hi || lo < bar_lo) && t != skip && cache.lookup(t).is_none() {
            if hi > bar_hi {
                insert(&mut toward, -hi, t, TOWARD);
            }
            if lo < bar_lo {
                insert(&mut partner, lo, t, PARTNER);
            }
        }
    }
    let mut out: Vec<usize> = toward.iter().map(|&(_, t)| t).collect();
    for &(_, t) in &partner {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// (in I_up, in I_low): whether y_t α_t can grow, and whether it can shrink.
#[inline]
fn membership(a: f64, y: f64, c: f64) -> (bool, bool) {
    if y > 0.0 {
        (a < c, a > 0.0)
    } else {
        (a > 0.0, a < c)
    }
}

/// Marks slot t's membership in I_up (y_t α_t can grow) and I_low (can shrink) as additive
/// penalties: 0 for a member, −∞ (I_up) or +∞ (I_low) otherwise.
#[inline]
pub(super) fn set_penalties(up: &mut [f64], low: &mut [f64], t: usize, a: f64, y: f64, c: f64) {
    let (can_grow, can_shrink) = membership(a, y, c);
    up[t] = if can_grow { 0.0 } else { f64::NEG_INFINITY };
    low[t] = if can_shrink { 0.0 } else { f64::INFINITY };
}

/// The step on variables i and j with labels `y`, minimised-dual gradients `g`, values `old`
/// and bounds `c` ([`pair_update`]): the new (α_i, α_j) and the moves (y_i Δα_i, y_j Δα_j) that
/// update the gradient.
#[inline]
pub(super) fn pair_step(
    y: (f64, f64),
    quad: f64,
    g: (f64, f64),
    old: (f64, f64),
    c: (f64, f64),
) -> ((f64, f64), (f64, f64)) {
    let (new_i, new_j) = pair_update(y.0 != y.1, quad, g.0, g.1, old.0, old.1, c.0, c.1);
    (
        (new_i, new_j),
        (y.0 * (new_i - old.0), y.1 * (new_j - old.1)),
    )
}

/// The two-variable subproblem along y_i e_i − y_j e_j solved exactly and clipped to the box
/// (LIBSVM's `Solver::Solve`, whose case analysis this follows). `g` are the gradients of the
/// minimised dual, `quad` = k_ii + k_jj − 2k_ij. Returns the new (α_i, α_j).
#[allow(clippy::too_many_arguments)]
pub(super) fn pair_update(
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
        clip_on_sum(&mut ai, &mut aj, ci, sum);
        clip_on_sum(&mut aj, &mut ai, cj, sum);
    }
    (ai, aj)
}

/// One half of [`pair_update`]'s same-sign case, with α_a + α_b = `sum` kept: α_a clipped to
/// its bound `ca` when the sum exceeds it, else α_b to 0.
#[inline(always)]
fn clip_on_sum(a: &mut f64, b: &mut f64, ca: f64, sum: f64) {
    if sum > ca {
        if *a > ca {
            *a = ca;
            *b = sum - ca;
        }
    } else if *b < 0.0 {
        *b = 0.0;
        *a = sum;
    }
}

/// The extremes a pass finds: the toward vertex argmax_{I_up} v and min_{I_low} v.
#[derive(Clone, Copy, Debug)]
pub(super) struct Extremes {
    pub(super) up_idx: usize,
    pub(super) up_val: f64,
    pub(super) low_val: f64,
}

impl Extremes {
    pub(super) fn empty() -> Self {
        Extremes {
            up_idx: usize::MAX,
            up_val: f64::NEG_INFINITY,
            low_val: f64::INFINITY,
        }
    }

    /// Merges a later chunk (higher indices: ties keep the earlier index).
    pub(super) fn merge(&mut self, later: Extremes) {
        if later.up_idx != usize::MAX && (self.up_idx == usize::MAX || later.up_val > self.up_val) {
            self.up_idx = later.up_idx;
            self.up_val = later.up_val;
        }
        self.low_val = self.low_val.min(later.low_val);
    }

    /// The extremes over consecutive chunks, given in index order.
    pub(super) fn merge_all(chunks: impl IntoIterator<Item = Extremes>) -> Self {
        let mut out = Extremes::empty();
        for chunk in chunks {
            out.merge(chunk);
        }
        out
    }
}

/// A pairwise update of v: the columns of i and j and y_i Δα_i, y_j Δα_j.
pub(super) type Update<'c> = (Column<'c>, Column<'c>, f64, f64);

/// v ← v − (w_i k(·, x_i) + w_j k(·, x_j)) (when `update` is given), fused with the search for
/// argmax_{I_up} v (first index on ties) and min_{I_low} v; in parallel chunks merged in order,
/// so the result does not depend on the thread count.
pub(super) fn pass(v: &mut [f64], up: &[f64], low: &[f64], update: Option<Update<'_>>) -> Extremes {
    let n = v.len();
    let chunk = n.div_ceil(current_num_threads()).max(CHUNK);
    let work = n * if update.is_some() { 3 } else { 1 };
    let parts = map_chunks(v, chunk, work * 2, |lo, vs| {
        let hi = lo + vs.len();
        let (up, low) = (&up[lo..hi], &low[lo..hi]);
        match update {
            None => scan_only(vs, up, low, lo),
            Some((Column::F32(ci), Column::F32(cj), wi, wj)) => {
                update_f32(vs, up, low, lo, &ci[lo..hi], &cj[lo..hi], wi, wj)
            }
            Some((Column::F64(ci), Column::F64(cj), wi, wj)) => {
                update_f64(vs, up, low, lo, &ci[lo..hi], &cj[lo..hi], wi, wj)
            }
            Some((ci, cj, wi, wj)) => scan_chunk(vs, up, low, lo, |k, x: &mut f64| {
                *x -= wi * ci.get(lo + k) + wj * cj.get(lo + k);
            }),
        }
    });
    Extremes::merge_all(parts)
}

crate::simd::multiversion! {
    avx512;
    /// [`scan_chunk`] without an update, in the AVX-512 or AVX2 build when the CPU has it.
    pub(super) fn scan_only(v: &mut [f64], up: &[f64], low: &[f64], first: usize) -> Extremes {
        scan_chunk(v, up, low, first, |_, _| {})
    }
}

/// `$name`: [`scan_chunk`] with the update v ← v − (w_i c_i + w_j c_j) from two columns of
/// element type `$t` (widened to `f64`), in the AVX-512 or AVX2 build when the CPU has it (same
/// tiers as [`scan_only`]).
macro_rules! update_from {
    ($name:ident, $t:ty) => {
        crate::simd::multiversion! {
            avx512;
            #[doc = concat!("[`scan_chunk`] with an update from `", stringify!($t), "` columns.")]
            fn $name(
                v: &mut [f64],
                up: &[f64],
                low: &[f64],
                first: usize,
                ci: &[$t],
                cj: &[$t],
                wi: f64,
                wj: f64,
            ) -> Extremes {
                scan_chunk(v, up, low, first, |k, x: &mut f64| {
                    *x -= wi * f64::from(ci[k]) + wj * f64::from(cj[k]);
                })
            }
        }
    };
}

update_from!(update_f32, f32);
update_from!(update_f64, f64);

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
        // Exact lanes (no bounds checks) so that the loop vectorises.
        let lanes = vb[..full].chunks_exact(LANES).zip(
            ub[..full]
                .chunks_exact(LANES)
                .zip(lb[..full].chunks_exact(LANES)),
        );
        for (v8, (u8, l8)) in lanes {
            for l in 0..LANES {
                hi[l] = strict_max(hi[l], v8[l] + u8[l]);
                lo[l] = strict_min(lo[l], v8[l] + l8[l]);
            }
        }
        for r in full..len {
            hi[0] = strict_max(hi[0], vb[r] + ub[r]);
            lo[0] = strict_min(lo[0], vb[r] + lb[r]);
        }
        let block_hi = lanes_max(&hi);
        let block_lo = lanes_min(&lo);
        if block_hi > out.up_val {
            out.up_idx = first + start + first_in_block(len, |r| vb[r] + ub[r] == block_hi);
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
    partner_with_gain(col_i, v, low, diag, diag[i], gmax).map(|(j, _)| j)
}

/// [`partner`] given k_ii, with the partner's gain: slices of the same length (a segment of
/// the variables, with its part of i's column and of the kernel diagonal).
pub(super) fn partner_with_gain(
    col_i: Column<'_>,
    v: &[f64],
    low: &[f64],
    diag: &[f64],
    kii: f64,
    gmax: f64,
) -> Option<(usize, Gain)> {
    let n = v.len();
    let chunk = n.div_ceil(current_num_threads()).max(CHUNK);
    let parts = map_ranges(n, chunk, 2 * n, |lo, hi| {
        let (v, low, diag) = (&v[lo..hi], &low[lo..hi], &diag[lo..hi]);
        let (j, gain) = match col_i {
            Column::F32(c) => partner_f32(&c[lo..hi], v, low, diag, kii, gmax),
            Column::F64(c) => partner_f64(&c[lo..hi], v, low, diag, kii, gmax),
        };
        ((j != usize::MAX).then(|| lo + j), gain)
    });
    // Chunks in order, strict improvement: the first slot of the largest gain wins.
    let mut best: (Option<usize>, (f64, f64)) = (None, (-1.0, 1.0));
    for (j, (num, den)) in parts {
        if j.is_some() && num * best.1.1 > best.1.0 * den {
            best = (j, (num, den));
        }
    }
    best.0.map(|j| (j, best.1))
}

/// The gain b²/a of a partner as the fraction (b², a); −1 marks no candidate.
pub(super) type Gain = (f64, f64);

crate::simd::multiversion! {
    avx512;
    /// [`best_partner`] on an `f32` column, in the AVX-512 or AVX2 build when the CPU has it.
    fn partner_f32(col: &[f32], v: &[f64], low: &[f64], diag: &[f64], kii: f64, gmax: f64) -> (usize, Gain) {
        best_partner(col, v, low, diag, kii, gmax)
    }
}

crate::simd::multiversion! {
    avx512;
    /// [`best_partner`] on an `f64` column (same tiers as [`partner_f32`]).
    fn partner_f64(col: &[f64], v: &[f64], low: &[f64], diag: &[f64], kii: f64, gmax: f64) -> (usize, Gain) {
        best_partner(col, v, low, diag, kii, gmax)
    }
}

/// [`partner`] over one column type, block by block: lane-wise maxima of the gain (vectorised),
/// then a rescan for the first index in a block that improves the best.
#[inline(always)]
fn best_partner<T: Copy + Into<f64>>(
    col: &[T],
    v: &[f64],
    low: &[f64],
    diag: &[f64],
    kii: f64,
    gmax: f64,
) -> (usize, Gain) {
    let n = v.len();
    // The gain b²/a as a fraction (b², a), compared by cross-multiplication (no division in
    // the loop); −1 marks a slot that is not a candidate (not in I_low, or v_t ≥ v_i).
    let gain_of = |k: f64, vt: f64, lowt: f64, dt: f64| {
        let b = gmax - (vt + lowt);
        let a = kii + dt - 2.0 * k;
        let a = if a > 0.0 { a } else { TAU };
        (if b > 0.0 { b * b } else { -1.0 }, a)
    };
    let gain = |t: usize| gain_of(col[t].into(), v[t], low[t], diag[t]);
    let better = |(n1, d1): (f64, f64), (n2, d2): (f64, f64)| n1 * d2 > n2 * d1;
    let mut best = (usize::MAX, (-1.0, 1.0));
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let mut num = [-1.0f64; LANES];
        let mut den = [1.0f64; LANES];
        // Equal-length slices cut into exact lanes: no bounds checks, so the lane loop
        // vectorises (indexing the whole arrays kept it scalar: 52% of an a9a fit at C = 32).
        let (cb, vb, lb, db) = (
            &col[start..end],
            &v[start..end],
            &low[start..end],
            &diag[start..end],
        );
        let lanes = cb
            .chunks_exact(LANES)
            .zip(vb.chunks_exact(LANES))
            .zip(lb.chunks_exact(LANES).zip(db.chunks_exact(LANES)));
        for ((c8, v8), (l8, d8)) in lanes {
            for l in 0..LANES {
                let (g, a) = gain_of(c8[l].into(), v8[l], l8[l], d8[l]);
                let wins = g * den[l] > num[l] * a;
                num[l] = if wins { g } else { num[l] };
                den[l] = if wins { a } else { den[l] };
            }
        }
        for t in start + (end - start) / LANES * LANES..end {
            let (g, a) = gain(t);
            if g * den[0] > num[0] * a {
                (num[0], den[0]) = (g, a);
            }
        }
        let mut block = (num[0], den[0]);
        for l in 1..LANES {
            if better((num[l], den[l]), block) {
                block = (num[l], den[l]);
            }
        }
        if block.0 >= 0.0 && better(block, best.1) {
            // The first slot attaining the block's best (the best's own slot compares equal).
            let t = (start..end)
                .find(|&t| {
                    let (g, a) = gain(t);
                    g >= 0.0 && g * block.1 == block.0 * a
                })
                .expect("attained in the block");
            best = (t, block);
        }
        start = end;
    }
    best
}

/// v_t = y_t − Σ_s α_s y_s k(x_s, x_t) recomputed exactly (`f64`, no cache) as one kernel
/// expansion over the support vectors.
/// Recomputes v exactly on the rows whose rounded v (off by at most `drift`) could hold the
/// largest v over I_up or the smallest over I_low, and on every support vector, and returns the
/// exact violation: the other rows' true v lie more than `drift` inside the extremes, so they
/// cannot change it. Their v stay rounded; the support vectors' are exact for the bias and the
/// objective. With more than half the rows selected every row is recomputed (the second value
/// is then `true`).
fn refine_near_extremes(
    problem: &BoxProblem<'_>,
    alpha: &[f64],
    v: &mut [f64],
    ctx: &mut Context<'_, '_, '_>,
) -> (f64, bool) {
    let started = std::time::Instant::now();
    let drift = ctx.drift;
    let (y, c) = (problem.labels(), problem.bounds());
    let m = alpha.len();
    let (hi, lo) = extremes(alpha, y, c, v, 0..m);
    // A row whose true v could exceed the true max over I_up has v̂ ≥ hi − 2·drift; the
    // thresholds are widened to the other extreme so that every free variable is taken.
    let (up_from, low_to) = (hi.min(lo) - 2.0 * drift, hi.max(lo) + 2.0 * drift);
    let rows: Vec<usize> = (0..m)
        .filter(|&t| {
            let (can_grow, can_shrink) = membership(alpha[t], y[t], c[t]);
            alpha[t] > 0.0 || (can_grow && v[t] >= up_from) || (can_shrink && v[t] <= low_to)
        })
        .collect();
    let kernel = problem.kernel();
    let all_rows = rows.len() * 2 > m || kernel.kernel() == Kernel::Precomputed;
    let support: Vec<usize> = (0..m).filter(|&s| alpha[s] > 0.0).collect();
    if all_rows {
        ctx.totals.evaluations += recompute_gradient(problem, alpha, v);
    } else {
        ctx.totals.evaluations += (rows.len() * support.len()) as u64;
        let coef: Vec<f64> = support.iter().map(|&s| -alpha[s] * y[s]).collect();
        let data = kernel.data();
        let selected = data.select_rows(&rows);
        let mut exact: Vec<f64> = rows.iter().map(|&t| y[t]).collect();
        KernelMatrix::new(kernel.kernel(), selected.view())
            .add_expansion(Terms::new(&data, &support, &coef), &mut exact);
        for (&t, &e) in rows.iter().zip(&exact) {
            v[t] = e;
        }
    }
    let recomputed = if all_rows { m } else { rows.len() };
    if ctx.params.verbose {
        ctx.monitor.log(&format!(
            "certificate: v recomputed exactly on {recomputed} of {m} rows from {} support \
             vectors (rounding bound {drift:.1e}) in {:.2} s",
            support.len(),
            started.elapsed().as_secs_f64()
        ));
    }
    let (hi, lo) = if all_rows {
        extremes(alpha, y, c, v, 0..m)
    } else {
        extremes(alpha, y, c, v, rows.iter().copied())
    };
    (hi - lo, all_rows)
}

/// The largest v over I_up and the smallest over I_low among `rows`.
fn extremes(
    alpha: &[f64],
    y: &[f64],
    c: &[f64],
    v: &[f64],
    rows: impl Iterator<Item = usize>,
) -> (f64, f64) {
    let (mut hi, mut lo) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in rows {
        let (can_grow, can_shrink) = membership(alpha[t], y[t], c[t]);
        if can_grow {
            hi = hi.max(v[t]);
        }
        if can_shrink {
            lo = lo.min(v[t]);
        }
    }
    (hi, lo)
}

/// v = y − Σ_s α_s y_s k(x_s, ·) exactly on every row; returns the kernel values computed
/// (m · #SV).
fn recompute_gradient(problem: &BoxProblem<'_>, alpha: &[f64], v: &mut [f64]) -> u64 {
    let y = problem.labels();
    let support: Vec<usize> = (0..alpha.len()).filter(|&s| alpha[s] > 0.0).collect();
    let coef: Vec<f64> = support.iter().map(|&s| -alpha[s] * y[s]).collect();
    v.copy_from_slice(y);
    add_training_expansion(problem.kernel(), &support, &coef, v);
    (v.len() * support.len()) as u64
}

/// out[r] += Σ_s coef_s k(x_support[s], x_r) on every training row, exactly (`f64`, no
/// cache); a precomputed kernel's data are the kernel values, so its columns are added.
pub(super) fn add_training_expansion(
    kernel: &KernelMatrix<'_>,
    support: &[usize],
    coef: &[f64],
    out: &mut [f64],
) {
    if kernel.kernel() == Kernel::Precomputed {
        let mut column = vec![0.0; out.len()];
        let mut scratch = crate::kernel::QueryScratch::new();
        for (&s, &w) in support.iter().zip(coef) {
            kernel.column(s, &mut column, &mut scratch);
            for (o, &k) in out.iter_mut().zip(&column) {
                *o += w * k;
            }
        }
    } else {
        kernel.add_expansion(Terms::new(&kernel.data(), support, coef), out);
    }
}

/// The dual objective Σα − ½αᵀQα, from αᵀQα = Σ α_t (1 − y_t v_t).
pub(super) fn dual_objective(alpha: &[f64], y: &[f64], v: &[f64]) -> f64 {
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
