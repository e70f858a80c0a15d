//! Hooks into a running solve: progress polling (interrupts, progress bars) and per-step
//! observation (tests, tracing).

use super::HistoryEntry;
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
}

/// A monitor that does nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMonitor;

impl Monitor for NoMonitor {}
