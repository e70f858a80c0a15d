//! Bookkeeping shared by the solver loops (the single-simplex engine and `ky`): iteration and
//! time limits, progress polling, verbose lines and the per-step history.

use std::time::Instant;

use super::engine::Totals;
use super::monitor::{Monitor, Progress};
use super::{ExitReason, HistoryEntry, SolverParams, SolverStats, StepCounts, StepKind};
use crate::error::Result;

/// Δ/|g| (Δ itself when g = 0).
pub(crate) fn relative(gap: f64, objective: f64) -> f64 {
    if objective != 0.0 {
        gap / objective.abs()
    } else {
        gap
    }
}

/// How often (in steps) the clock is read for time limits, progress and interrupts.
const CLOCK_EVERY: u64 = 64;

/// Where a solve stands before a step: what [`Tracker::checkpoint`] reports and prints.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Standing {
    pub objective: f64,
    pub gap: f64,
    /// Support vectors (or active slots) of the iterate.
    pub coreset_size: usize,
    /// Kernel columns computed so far.
    pub columns: u64,
}

/// Limits, progress and history of one solve.
pub(crate) struct Tracker<'p> {
    params: &'p SolverParams,
    start: Instant,
    last_poll: f64,
    last_print: f64,
    wants_steps: bool,
    /// Steps taken so far.
    pub steps_taken: u64,
    /// The recorded history (when `record_history` is set).
    pub history: Vec<HistoryEntry>,
}

impl<'p> Tracker<'p> {
    pub fn new(params: &'p SolverParams, monitor: &(dyn Monitor + Send)) -> Self {
        Tracker {
            params,
            start: Instant::now(),
            last_poll: 0.0,
            last_print: f64::NEG_INFINITY,
            wants_steps: monitor.wants_steps(),
            steps_taken: 0,
            history: Vec::new(),
        }
    }

    /// Seconds since the solve started.
    pub fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Called before each step with where the iterate stands: returns the
    /// exit reason if `max_iter` or the time limit is reached; polls the monitor about every
    /// 0.1 s and prints a progress line every second when verbose.
    ///
    /// # Errors
    /// Whatever the monitor returns (e.g. an interrupt).
    pub fn checkpoint(
        &mut self,
        monitor: &mut (dyn Monitor + Send),
        now: Standing,
    ) -> Result<Option<ExitReason>> {
        let iteration = self.steps_taken;
        if self.params.max_iter.is_some_and(|k| iteration >= k) {
            return Ok(Some(ExitReason::MaxIterations));
        }
        if !iteration.is_multiple_of(CLOCK_EVERY) {
            return Ok(None);
        }
        self.poll(monitor, now)
    }

    /// The clock part of [`Tracker::checkpoint`], at any step: the time limit, the monitor's
    /// progress about every 0.1 s and a verbose line every second.
    ///
    /// # Errors
    /// Whatever the monitor returns (e.g. an interrupt).
    pub fn poll(
        &mut self,
        monitor: &mut (dyn Monitor + Send),
        now: Standing,
    ) -> Result<Option<ExitReason>> {
        let Standing {
            objective,
            gap,
            coreset_size,
            columns,
        } = now;
        let seconds = self.seconds();
        let iteration = self.steps_taken;
        if self
            .params
            .time_limit
            .is_some_and(|t| seconds >= t.as_secs_f64())
        {
            return Ok(Some(ExitReason::TimeLimit));
        }
        let p = Progress {
            iteration,
            objective,
            gap,
            relative_gap: relative(gap, objective),
            coreset_size,
            seconds,
            task: None,
        };
        if seconds - self.last_poll >= 0.1 {
            monitor.progress(&p)?;
            self.last_poll = seconds;
        }
        if self.params.verbose && seconds - self.last_print >= 1.0 {
            monitor.log(&format!(
                "iter {:>9}  obj {:>+.8e}  gap {:.3e}  rel {:.3e}  coreset {:>7}  columns {:>7}  {:>8.2}s",
                p.iteration, p.objective, p.gap, p.relative_gap, p.coreset_size, columns, p.seconds
            ));
            self.last_print = seconds;
        }
        Ok(None)
    }

    /// The statistics of a finished solve.
    #[allow(clippy::too_many_arguments)]
    pub fn stats(
        &self,
        exit_reason: ExitReason,
        objective: f64,
        gap: f64,
        quadratic: f64,
        steps: StepCounts,
        n_active: usize,
        totals: &Totals,
    ) -> SolverStats {
        SolverStats {
            exit_reason,
            n_iter: self.steps_taken,
            gap,
            relative_gap: relative(gap, objective),
            objective,
            quadratic,
            steps,
            n_active,
            columns_computed: totals.columns,
            kernel_evaluations: totals.evaluations,
            cache_hits: totals.hits,
            cache_capacity: totals.capacity,
            cache_precision: totals.precision,
            resyncs: totals.resyncs,
            shrinks: 0,
            rejoins: 0,
            sampled_steps: 0,
            seconds: self.seconds(),
        }
    }

    /// Ends the history (when recorded) with the state the solve ended in, as a
    /// [`StepKind::Final`] entry: `gap` in the measure the steps recorded.
    pub fn close(&mut self, objective: f64, gap: f64, coreset_size: usize) {
        if self.params.record_history {
            self.history.push(HistoryEntry {
                iteration: self.steps_taken,
                objective,
                gap,
                kind: StepKind::Final,
                coreset_size,
                seconds: self.seconds(),
            });
        }
    }

    /// Records a step taken from a point with the given objective and gap.
    pub fn record(
        &mut self,
        monitor: &mut (dyn Monitor + Send),
        alpha: &[f64],
        objective: f64,
        gap: f64,
        kind: StepKind,
        coreset_size: usize,
    ) {
        let iteration = self.steps_taken;
        self.steps_taken += 1;
        if !(self.params.record_history || self.wants_steps) {
            return;
        }
        let entry = HistoryEntry {
            iteration,
            objective,
            gap,
            kind,
            coreset_size,
            seconds: self.seconds(),
        };
        if self.wants_steps {
            monitor.step(alpha, &entry);
        }
        if self.params.record_history {
            self.history.push(entry);
        }
    }
}
