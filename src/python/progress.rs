//! Progress of native fits for Python's `sys.stderr` when it is not the process's stderr (a
//! redirected stream, a Jupyter cell): the fit's display queues its lines and live state in a
//! [`ProgressQueue`], and the Python thread waiting for the fit writes them
//! (`fwsvm._progress`). No solver thread ever attaches to the interpreter.

use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;

use crate::progress::{LiveState, ProgressSink};

/// One queued event: `("line", text, 0, 0, [])`, `("live", status, done, total, running)` or
/// `("clear", "", 0, 0, [])`, as [`ProgressQueue::drain`] returns it.
type Event = (&'static str, String, usize, usize, Vec<String>);

#[derive(Default)]
struct Queue {
    live: bool,
    events: Mutex<Vec<Event>>,
}

impl Queue {
    fn push(&self, event: Event) {
        let mut events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        // Only the newest live state matters: the display redraws, it does not log.
        if event.0 == "live"
            && let Some(last) = events.last_mut()
            && last.0 == "live"
        {
            *last = event;
            return;
        }
        events.push(event);
    }
}

impl ProgressSink for Queue {
    fn line(&self, line: &str) {
        self.push(("line", line.to_owned(), 0, 0, Vec::new()));
    }

    fn live(&self) -> bool {
        self.live
    }

    fn update(&self, state: Option<&LiveState>) {
        self.push(match state {
            Some(s) => ("live", s.status.clone(), s.done, s.total, s.running.clone()),
            None => ("clear", String::new(), 0, 0, Vec::new()),
        });
    }
}

/// Progress lines and live state of the fits started on a thread, queued for Python to write.
#[pyclass(module = "fwsvm._core", frozen)]
pub(crate) struct ProgressQueue {
    queue: Arc<Queue>,
}

impl ProgressQueue {
    /// The sink a fit's display writes to.
    pub(super) fn sink(&self) -> Arc<dyn ProgressSink> {
        Arc::clone(&self.queue) as Arc<dyn ProgressSink>
    }
}

#[pymethods]
impl ProgressQueue {
    /// A queue; `live`: also queue the live state of fits running longer than 2 s (for an
    /// updating display).
    #[new]
    #[pyo3(signature = (live=false))]
    fn new(live: bool) -> Self {
        ProgressQueue {
            queue: Arc::new(Queue {
                live,
                events: Mutex::default(),
            }),
        }
    }

    /// Takes the queued events, oldest first: `("line", text, 0, 0, [])`, `("live", status,
    /// done, total, running)` (newest state only) or `("clear", "", 0, 0, [])`.
    fn drain(&self) -> Vec<Event> {
        std::mem::take(
            &mut *self
                .queue
                .events
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}
