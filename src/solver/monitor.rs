//! Hooks into a running solve: progress polling (interrupts, progress bars) and per-step
//! observation (tests, tracing).

use super::{HistoryEntry, SolverStats};
use crate::error::Result;

/// A snapshot passed to [`Monitor::progress`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Steps taken so far.
    pub iteration: u64,
    /// Current objective g(α).
    pub objective: f64,
    /// Current duality gap.
    pub gap: f64,
    /// Gap relative to |g(α)|.
    pub relative_gap: f64,
    /// Current coreset size.
    pub coreset_size: usize,
    /// Seconds since the solve started.
    pub seconds: f64,
    /// Which sub-problem of a multi-problem fit (the [`Task::index`] of a one-vs-one pair)
    /// this solve is; `None` for a single problem.
    pub task: Option<usize>,
}

/// One sub-problem of a fit that solves several (one-vs-one pairs), announced to the monitor by
/// [`Monitor::task_started`] and [`Monitor::task_finished`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// Position in the fit's list of sub-problems (LIBSVM's pair order), 0-based.
    pub index: usize,
    /// How many sub-problems the fit solves.
    pub total: usize,
    /// What the sub-problem is, e.g. `"3 vs 7"` for the pair of classes 3 and 7.
    pub label: String,
    /// For a one-vs-one pair, the positions of its two classes in the sorted class list.
    pub pair: Option<(usize, usize)>,
}

/// Callbacks from a running solve. Both methods have no-op defaults.
pub trait Monitor: Send {
    /// Called about every 0.1 s. Returning an error (e.g.
    /// [`FwsvmError::Interrupted`](crate::FwsvmError::Interrupted)) stops the solve with it.
    ///
    /// # Errors
    /// Whatever the implementation decides; the solve returns it.
    fn progress(&mut self, _progress: &Progress) -> Result<()> {
        Ok(())
    }

    /// Whether [`Monitor::step`] should be called (it costs O(m) per step to provide α).
    fn wants_steps(&self) -> bool {
        false
    }

    /// Called after every step with the new iterate and the step's record.
    fn step(&mut self, _alpha: &[f64], _entry: &HistoryEntry) {}

    /// A line of the solver's verbose log ([`SolverParams::verbose`](super::SolverParams)),
    /// without the `fwsvm: ` prefix. The default writes it to stderr.
    fn log(&mut self, line: &str) {
        eprintln!("fwsvm: {line}");
    }

    /// A line of the verbose log of a sub-problem's solve. The default labels it with
    /// [`Task::label`] and passes it to [`Monitor::log`].
    fn task_log(&mut self, task: &Task, line: &str) {
        self.log(&format!("[pair {}] {line}", task.label));
    }

    /// A sub-problem of a multi-problem fit starts (called from the thread that solves it).
    fn task_started(&mut self, _task: &Task) {}

    /// A sub-problem of a multi-problem fit ended with these statistics.
    fn task_finished(&mut self, _task: &Task, _stats: &SolverStats) {}
}

/// A monitor that does nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMonitor;

impl Monitor for NoMonitor {}
