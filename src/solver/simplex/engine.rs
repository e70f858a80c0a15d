//! The solver loop shared by every Frank-Wolfe variant.

use super::init::initial_iterate;
use super::monitor::Monitor;
use super::rounds::Rounds;
use super::sampled;
use super::scan::{ColumnTerm, Vertices, scan, update_and_scan};
use super::state::State;
use super::tracker::Tracker;
use super::{
    Algorithm, ExitReason, HistoryEntry, Solution, SolverParams, SolverStats, StepCounts, StepKind,
    Stopping, bc, fw, ky, mfw, shrink, swap,
};
use crate::error::{FwsvmError, Result};
use crate::kernel::{CachePrecision, ColumnCache};
use crate::problem::SimplexProblem;

/// A step chosen by an algorithm, with its step size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Step {
    /// α ← (1−λ)α + λe_i.
    Toward { i: usize, lambda: f64 },
    /// α ← (1+λ)α − λe_j; `drop` when λ = α_j/(1−α_j).
    Away { j: usize, lambda: f64, drop: bool },
    /// α ← α + λ(e_i − e_j); `drop` when λ = α_j. `curvature` = Q_ii − 2Q_ij + Q_jj.
    Swap {
        i: usize,
        j: usize,
        lambda: f64,
        drop: bool,
        curvature: f64,
    },
}

impl Step {
    /// The step size λ.
    pub(crate) fn lambda(&self) -> f64 {
        match *self {
            Step::Toward { lambda, .. } | Step::Away { lambda, .. } | Step::Swap { lambda, .. } => {
                lambda
            }
        }
    }
}

/// Maximises the problem's objective on the unit simplex (or, for [`Algorithm::Ky`], solves
/// the two-simplex nearest-point problem; see the `ky` module).
///
/// # Errors
/// [`FwsvmError::InvalidParameter`] for invalid `params` (including the MEB rule on a problem
/// that is not a ball, and `ky` on a problem that is not a two-class nearest-point problem), or
/// whatever the monitor returns (e.g. [`FwsvmError::Interrupted`]).
pub fn solve(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
) -> Result<Solution> {
    params.validate()?;
    if params.algorithm == Algorithm::Ky {
        return ky::solve(problem, params, monitor);
    }
    if params.algorithm == Algorithm::Dcd {
        return Err(FwsvmError::param(
            "algorithm",
            "'dcd' is the linear-kernel path of the squared-hinge SVC and solves no other problem; \
             use one of fw, mfw, swap, swap2o, bc",
        ));
    }
    if params.stopping == Stopping::Meb && !problem.is_meb() {
        return Err(FwsvmError::param(
            "stopping",
            "the 'meb' (CVM) rule needs a minimum enclosing ball problem: a kernel with constant k(x,x) \
             (rbf, laplacian) and no sample or class weights; use 'gap' instead",
        ));
    }
    if shrink::applies(problem, params) {
        return shrink::solve(problem, params, monitor);
    }
    let mut tracker = Tracker::new(params, monitor);
    let mut steps = StepCounts::default();
    let (mut support, mut values) = initial_iterate(problem, params)?;
    let mut stop = None;
    let mut sampled_steps = 0;
    if let Some(r) = params.sample_size {
        let phase = sampled::run(
            problem,
            params,
            r,
            (support, values),
            &mut tracker,
            monitor,
            &mut steps,
        )?;
        if params.verbose {
            let (steps, coreset, evaluations) =
                (phase.steps, phase.support.len(), phase.evaluations);
            let (seconds, then) = (tracker.seconds(), phase.handoff.describe());
            monitor.log(&format!(
                "sampled phase ({r} random slots per step): {steps} steps, coreset {coreset}, \
                 {evaluations} kernel evaluations, {seconds:.3} s; full passes from here ({then})"
            ));
        }
        if let sampled::Handoff::Stop(reason) = phase.handoff {
            stop = Some(reason);
        }
        sampled_steps = phase.steps;
        (support, values) = (phase.support, phase.values);
    }
    let run = run(
        problem,
        params,
        &mut tracker,
        monitor,
        &mut steps,
        Start::Iterate(support, values),
        stop,
        false,
    )?;
    let End::Exit(exit_reason) = run.end else {
        unreachable!("a run without shrinking checks only exits")
    };
    let mut state = run.state;
    let mut stats = final_stats(
        problem,
        &mut tracker,
        &mut state,
        run.v.toward_grad,
        exit_reason,
        steps,
        &run.totals,
    );
    stats.sampled_steps = sampled_steps;
    finish(params, monitor, stats, state.alpha, tracker.history, None)
}

/// The statistics of a solve that ended at `state` (its scalars refreshed first), with the
/// gap to the toward vertex's gradient `toward_grad`, relative to the problem's reference; the
/// history is closed with the same point.
pub(crate) fn final_stats(
    problem: &SimplexProblem<'_>,
    tracker: &mut Tracker<'_>,
    state: &mut State,
    toward_grad: f64,
    exit_reason: ExitReason,
    steps: StepCounts,
    totals: &Totals,
) -> SolverStats {
    state.refresh_scalars(problem);
    let objective = state.objective();
    let gap = toward_grad - state.alpha_dot_grad();
    tracker.close(objective, gap, state.active.len());
    let mut stats = tracker.stats(
        exit_reason,
        objective,
        gap,
        state.quad,
        steps,
        state.active.len(),
        totals,
    );
    stats.relative_gap =
        crate::solver::tracker::relative(gap, problem.gap_reference(state.lin, state.quad));
    stats
}

/// Where a [`run`] starts.
pub(crate) enum Start {
    /// α with this support and these weights; G is computed from the support's columns.
    Iterate(Vec<usize>, Vec<f64>),
    /// A state whose G already equals Qα (to the round-off it records): the shrinking
    /// driver's hand-over between problems.
    State(State),
}

/// How a [`run`] ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum End {
    /// Converged or stopped by a limit.
    Exit(ExitReason),
    /// The shrinking test found that at most three quarters of the samples can still matter,
    /// these (indices into the run's problem; see the `shrink` module): the caller continues
    /// on a smaller problem.
    Shrink(Vec<usize>),
}

/// Cache and gradient bookkeeping summed over the runs of one solve.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Totals {
    pub columns: u64,
    pub evaluations: u64,
    pub hits: u64,
    pub resyncs: u64,
    pub capacity: usize,
    pub precision: CachePrecision,
}

impl Totals {
    /// The statistics of one cache over columns of length `m`.
    pub(crate) fn of(cache: &ColumnCache, m: usize, resyncs: u64) -> Self {
        Totals {
            columns: cache.columns_computed(),
            evaluations: cache.columns_computed() * m as u64,
            hits: cache.hits(),
            resyncs,
            capacity: cache.capacity(),
            precision: cache.precision(),
        }
    }

    /// Adds another run's statistics (capacity and precision: the latest run's).
    pub(crate) fn merge(&mut self, other: &Totals) {
        self.columns += other.columns;
        self.evaluations += other.evaluations;
        self.hits += other.hits;
        self.resyncs += other.resyncs;
        self.capacity = other.capacity;
        self.precision = other.precision;
    }
}

/// The outcome of a [`run`]: the final state and vertices, why it ended and the cache
/// statistics.
pub(crate) struct Run {
    pub state: State,
    pub v: Vertices,
    pub end: End,
    pub totals: Totals,
}

/// The solver loop on one problem: stopping test, step selection, the fused update-and-scan.
/// Steps are counted in `steps` and recorded by `tracker` (shared by every run of a solve, so
/// `max_iter`, the time limit and the history span them all). `stop`: end at once with this
/// reason (a sampled phase that already hit a limit). `shrinking`: check every
/// [`shrink::CHECK_EVERY`] steps whether a quarter of the samples could leave the problem, and
/// if so end with [`End::Shrink`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    tracker: &mut Tracker<'_>,
    monitor: &mut (dyn Monitor + Send),
    steps: &mut StepCounts,
    start: Start,
    mut stop: Option<ExitReason>,
    shrinking: bool,
) -> Result<Run> {
    let n = problem.n_slots();
    let mut cache = params.column_cache(problem.n_samples());
    let mut state = match start {
        Start::Iterate(support, values) => {
            let mut state = State::zeros(n);
            state.set_iterate(problem, &mut cache, &support, &values);
            state
        }
        Start::State(mut state) => {
            state.refresh_scalars(problem);
            state
        }
    };
    let cache_rounds = cache.precision() == CachePrecision::Float32;
    let mut v = scan(problem, &mut state.grad_q, &state.alpha);

    // Round-off in G grows by about one ulp of max|Q| per step (notes F.1).
    let q_max = (0..n).map(|a| problem.q_diag(a).abs()).fold(0.0, f64::max);
    let mut resyncs: u64 = 0;
    let mut certified = false;
    let mut stalled = false;
    let mut stagnation = Stagnation::new(n);
    let mut next_shrink_check = tracker.steps_taken + shrink::CHECK_EVERY;
    let whole_matrix_cached = cache.capacity() >= problem.n_samples();
    let mut rounds = Rounds::new(
        params.adaptive && matches!(params.algorithm, Algorithm::Swap | Algorithm::Swap2o),
    );
    if params.verbose {
        monitor.log(&format!(
            "{} on {n} slots, {} init, tol {:e} ({}), cache {} columns ({})",
            params.algorithm,
            params.init.name(),
            params.tol,
            params.stopping.name(),
            cache.capacity(),
            cache.precision().name()
        ));
    }

    let end = loop {
        if let Some(reason) = stop.take() {
            break End::Exit(reason);
        }
        let gap = v.toward_grad - state.alpha_dot_grad();
        let objective = state.objective();
        let threshold = stopping_threshold(problem, params, &state);
        if gap <= threshold && state.rounded {
            // G holds kernel values rounded to f32 (an f32 column cache), whose error can be
            // as large as the gap: shuttle, class 1 against the rest (γ 2, C 32, tol 1e-3)
            // reported 0.986 × the threshold for a true gap of 1.02 ×. Recompute G exactly,
            // then test again.
            state.rebuild_exact(problem, None);
            state.refresh_scalars(problem);
            v = scan(problem, &mut state.grad_q, &state.alpha);
            resyncs += 1;
            continue;
        }
        if gap <= threshold {
            if certified {
                break End::Exit(ExitReason::Converged);
            }
            // Certify with exact scalars, and a fresh G if drift could matter (docs/guide/formulation.rst, "The stopping certificate").
            state.refresh_scalars(problem);
            let drift = state.since_resync as f64 * 8.0 * f64::EPSILON * q_max;
            let forced = params.resync_every.is_some() && state.since_resync > 0;
            if drift > 0.01 * threshold.abs() || forced {
                resync(problem, &mut state, &mut cache, &mut v);
                resyncs += 1;
            }
            certified = true;
            continue;
        }
        if stagnation.stuck(gap, objective, tracker.steps_taken) {
            break End::Exit(ExitReason::NoProgress);
        }
        if shrinking && tracker.steps_taken >= next_shrink_check {
            next_shrink_check = tracker.steps_taken + shrink::CHECK_EVERY;
            if let Some(kept) = shrink::worth_shrinking(problem, &state, &v) {
                break End::Shrink(kept);
            }
        }
        if let Some(reason) =
            tracker.checkpoint_at(monitor, &state, objective, gap, cache.columns_computed())?
        {
            break End::Exit(reason);
        }

        let kind = if params.algorithm == Algorithm::Bc {
            // Inner solves to half the outer threshold (gap on the coreset): the coreset optimum is then
            // certified well inside the outer tolerance.
            // Never below round-off level (see `Stagnation`), or every inner solve runs to its cap.
            let inner_tol = (0.5 * threshold).max(Stagnation::FLOOR * objective.abs());
            bc::corrective_step(problem, &mut state, &mut cache, &mut v, inner_tol).map(
                |(inner, _)| {
                    steps.inner += inner;
                    StepKind::Corrective
                },
            )
        } else if rounds.due(state.active.len(), cache.capacity()) {
            // A coreset round: solve the coreset to a quarter of the current gap (never tighter
            // than the outer test needs); see the `rounds` module.
            let inner_tol = (0.25 * gap)
                .max(0.5 * threshold)
                .max(Stagnation::FLOOR * objective.abs());
            let coreset = state.active.len();
            let round = bc::corrective_step(problem, &mut state, &mut cache, &mut v, inner_tol);
            let (inner, changed) = round.unwrap_or((0, 0));
            rounds.finished(inner, changed, coreset, n);
            steps.inner += inner;
            round.map(|_| StepKind::Corrective)
        } else {
            rounds.observe(state.alpha[v.toward] > 0.0);
            let step = match params.algorithm {
                Algorithm::Fw => fw::select(problem, &state, &v),
                Algorithm::Mfw => mfw::select(problem, &state, &v),
                Algorithm::Swap2o => swap::select(problem, &state, &v, &mut cache, true),
                _ => {
                    // Second-order partners when first-order steps stall inside a coreset small
                    // enough for the O(|S|) partner search to cost less than the O(n) pass, or
                    // at any size when every column is cached (the search then only reads
                    // memory: svmguide3 at C = 128, |S| = 0.64n, 61k -> 20k steps).
                    let second_order =
                        rounds.stalling() && (state.active.len() * 4 <= n || whole_matrix_cached);
                    swap::select(problem, &state, &v, &mut cache, second_order)
                }
            };
            (step.lambda() > 0.0).then(|| apply(problem, &mut state, &mut cache, &mut v, step))
        };
        let Some(kind) = kind else {
            // The gap says "not optimal" but no step improves g in floating point: resync once
            // (drift can fake a gap); if that does not help, the tolerance is below what double
            // precision can certify.
            if stalled {
                break End::Exit(ExitReason::NoProgress);
            }
            stalled = true;
            resync(problem, &mut state, &mut cache, &mut v);
            resyncs += 1;
            continue;
        };
        stalled = false;
        certified = false;
        steps.count(kind);
        state.since_resync += 1;
        state.rounded |= cache_rounds;
        tracker.record_at(monitor, &state, objective, gap, kind);
        if params.resync_every.is_some_and(|k| state.since_resync >= k) {
            resync(problem, &mut state, &mut cache, &mut v);
            resyncs += 1;
        }
    };

    if params.verbose && rounds.run > 0 {
        monitor.log(&format!(
            "{} coreset rounds ({} paid off), {} inner steps",
            rounds.run, rounds.paid, steps.inner
        ));
    }
    Ok(Run {
        state,
        v,
        end,
        totals: Totals::of(&cache, problem.n_samples(), resyncs),
    })
}

/// Prints the final line (when verbose) and assembles the solution.
pub(crate) fn finish(
    params: &SolverParams,
    monitor: &mut (dyn Monitor + Send),
    stats: SolverStats,
    alpha: Vec<f64>,
    history: Vec<HistoryEntry>,
    threshold: Option<f64>,
) -> Result<Solution> {
    if params.verbose {
        monitor.log(&format!(
            "{} after {} steps: objective {:.10e}, gap {:.3e} (relative {:.3e}), {} active, {} kernel columns, {:.3} s",
            stats.exit_reason.name(),
            stats.n_iter,
            stats.objective,
            stats.gap,
            stats.relative_gap,
            stats.n_active,
            stats.columns_computed,
            stats.seconds
        ));
    }
    Ok(Solution {
        alpha,
        stats,
        history,
        threshold,
    })
}

/// The gap below which the stopping rule holds.
/// Detects a tolerance below what double precision can certify when steps stay nonzero.
///
/// Tiny positive steps can go on forever once the duality gap is at the level of round-off in
/// the objective (a squared-hinge fit at tol 1e-15 ran 10⁶ steps with its relative gap stuck at
/// 4e-13). Once the gap is below `FLOOR` × |objective| the solve ends with
/// [`ExitReason::NoProgress`] if the smallest gap seen has not halved within `window` steps
/// (10 n, at least 10⁴). Above the floor nothing is ever stopped, however slow the progress.
pub(crate) struct Stagnation {
    window: u64,
    best: f64,
    best_at: u64,
}

impl Stagnation {
    /// Relative gaps below 10⁴ ulps of the objective are round-off territory.
    const FLOOR: f64 = 1e4 * f64::EPSILON;

    pub(crate) fn new(n: usize) -> Self {
        Self {
            window: (10 * n as u64).max(10_000),
            best: f64::INFINITY,
            best_at: 0,
        }
    }

    /// Record the gap at step `step`; true when the solve is stuck at round-off level.
    pub(crate) fn stuck(&mut self, gap: f64, objective: f64, step: u64) -> bool {
        if gap < 0.5 * self.best {
            self.best = gap;
            self.best_at = step;
            return false;
        }
        self.best <= Self::FLOOR * objective.abs()
            && step.saturating_sub(self.best_at) > self.window
    }
}

pub(crate) fn stopping_threshold(
    problem: &SimplexProblem<'_>,
    params: &SolverParams,
    state: &State,
) -> f64 {
    match params.stopping {
        Stopping::RelativeGap => params.tol * problem.gap_reference(state.lin, state.quad),
        Stopping::AbsoluteGap => params.tol,
        Stopping::Meb => {
            // 1 + δ⁺ ≤ (1+ε)² with δ⁺ = Δ/R² (papers 000 §3.3.4, 003).
            let r2 = problem
                .meb_squared_radius(state.lin, state.quad)
                .unwrap_or(0.0);
            ((1.0 + params.tol).powi(2) - 1.0) * r2
        }
    }
}

pub(crate) fn resync(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &mut ColumnCache,
    v: &mut Vertices,
) {
    // Renormalise the ulps of drift in Σα too, then rebuild G from the coreset's columns.
    let total: f64 = state.active.iter().map(|&a| state.alpha[a]).sum();
    if total > 0.0 {
        state.scale_active(1.0 / total);
    }
    state.resync(problem, cache);
    *v = scan(problem, &mut state.grad_q, &state.alpha);
}

/// Applies a step to α, the coreset, the scalars and (fused with the next scan) to G.
fn apply(
    problem: &SimplexProblem<'_>,
    state: &mut State,
    cache: &mut ColumnCache,
    v: &mut Vertices,
    step: Step,
) -> StepKind {
    let b = problem.linear();
    match step {
        Step::Toward { i, lambda } => {
            let slot = cache.fetch(problem.kernel(), problem.sample(i), None);
            let (lin, quad, gi) = (state.lin, state.quad, state.grad_q[i]);
            state.lin = (1.0 - lambda) * lin + lambda * b[i];
            state.quad = (1.0 - lambda).powi(2) * quad
                + 2.0 * lambda * (1.0 - lambda) * gi
                + lambda * lambda * problem.q_diag(i);
            if lambda >= 1.0 {
                for a in state.active.clone() {
                    state.drop_point(a);
                }
                state.alpha[i] = 1.0;
            } else {
                state.scale_active(1.0 - lambda);
                state.alpha[i] += lambda;
            }
            state.activate(i);
            let term = ColumnTerm {
                coef: lambda,
                slot: i,
                column: cache.column(slot),
            };
            *v = update_and_scan(
                problem,
                &mut state.grad_q,
                &state.alpha,
                1.0 - lambda,
                &[term],
            );
            StepKind::Toward
        }
        Step::Away { j, lambda, drop } => {
            let slot = cache.fetch(problem.kernel(), problem.sample(j), None);
            let (lin, quad, gj) = (state.lin, state.quad, state.grad_q[j]);
            state.lin = (1.0 + lambda) * lin - lambda * b[j];
            state.quad = (1.0 + lambda).powi(2) * quad - 2.0 * lambda * (1.0 + lambda) * gj
                + lambda * lambda * problem.q_diag(j);
            state.scale_active(1.0 + lambda);
            if drop {
                state.drop_point(j);
            } else {
                state.alpha[j] -= lambda;
            }
            let term = ColumnTerm {
                coef: -lambda,
                slot: j,
                column: cache.column(slot),
            };
            *v = update_and_scan(
                problem,
                &mut state.grad_q,
                &state.alpha,
                1.0 + lambda,
                &[term],
            );
            if drop { StepKind::Drop } else { StepKind::Away }
        }
        Step::Swap {
            i,
            j,
            lambda,
            drop,
            curvature,
        } => {
            let si = cache.fetch(problem.kernel(), problem.sample(i), None);
            let sj = cache.fetch(problem.kernel(), problem.sample(j), Some(si));
            state.lin += lambda * (b[i] - b[j]);
            state.quad +=
                2.0 * lambda * (state.grad_q[i] - state.grad_q[j]) + lambda * lambda * curvature;
            state.alpha[i] += lambda;
            state.activate(i);
            if drop {
                state.drop_point(j);
            } else {
                state.alpha[j] -= lambda;
            }
            let terms = [
                ColumnTerm {
                    coef: lambda,
                    slot: i,
                    column: cache.column(si),
                },
                ColumnTerm {
                    coef: -lambda,
                    slot: j,
                    column: cache.column(sj),
                },
            ];
            *v = update_and_scan(problem, &mut state.grad_q, &state.alpha, 1.0, &terms);
            if drop {
                StepKind::SwapDrop
            } else {
                StepKind::SwapAdd
            }
        }
    }
}
