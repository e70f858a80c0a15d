//! Progress on stderr for long fits: a [`Monitor`] that draws a live status line (and, for
//! one-vs-one fits, a pairs-done bar with one line per running pair) with
//! [`indicatif`], and prints a labelled summary line per solved problem.
//!
//! Nothing is drawn for fits shorter than [`ProgressDisplay::DELAY`]; live lines are drawn only
//! when stderr is a terminal (in a log file they would be noise), while the summary lines and
//! the solver's verbose log go to stderr either way. The display is fed by the monitor hooks
//! the solver calls about every 0.1 s, never from the step loop itself.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::Result;
use crate::solver::{Monitor, Progress, SolverStats, Task};

/// What the live line compares with `tol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapMeasure {
    /// The duality gap relative to the objective (the squared hinge's default stopping rule).
    Relative,
    /// The absolute duality gap, or the largest KKT violation for the hinge loss.
    Absolute,
}

/// A [`Monitor`] that shows progress on stderr and forwards every call to `inner` (which
/// decides about interrupts).
///
/// `level` 0 shows nothing; 1 shows the live line(s) and one summary line per solved problem; level 2 also
/// prints the solver's verbose log ([`SolverParams::verbose`](crate::SolverParams) must be set
/// for the solver to produce it).
pub struct ProgressDisplay<M: Monitor> {
    inner: M,
    tol: f64,
    measure: GapMeasure,
    level: u8,
    start: Instant,
    multi: MultiProgress,
    /// The fit's main line: a spinner for one problem, the pairs-done bar for several.
    main: Option<ProgressBar>,
    /// Live lines of the running sub-problems, by task index.
    running: HashMap<usize, ProgressBar>,
    labels: HashMap<usize, String>,
    class_names: Vec<String>,
    total: usize,
    done: usize,
}

impl<M: Monitor> ProgressDisplay<M> {
    /// Fits shorter than this show no live line.
    pub const DELAY: Duration = Duration::from_secs(2);

    /// A display at verbosity `level` (0, 1 or 2) for a solve stopping at `tol` in `measure`.
    pub fn new(inner: M, tol: f64, measure: GapMeasure, level: u8) -> Self {
        ProgressDisplay {
            inner,
            tol,
            measure,
            level,
            start: Instant::now(),
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10)),
            main: None,
            running: HashMap::new(),
            labels: HashMap::new(),
            class_names: Vec::new(),
            total: 0,
            done: 0,
        }
    }

    /// Names the classes of one-vs-one pairs in labels (by position in the sorted class
    /// list) instead of the label values the fit saw.
    pub fn with_class_names(mut self, names: Vec<String>) -> Self {
        self.class_names = names;
        self
    }

    /// Whether live lines are drawn (stderr is a terminal).
    pub fn is_live(&self) -> bool {
        !self.multi.is_hidden()
    }

    /// Prints the summary line of a single-problem fit (one-vs-one pairs print theirs as they
    /// finish) and clears the live line.
    pub fn finish(&mut self, stats: &SolverStats) {
        self.clear();
        if self.level >= 1 {
            self.print(&summary(None, stats));
        }
    }

    fn shown(&self) -> bool {
        self.start.elapsed() >= Self::DELAY
    }

    fn print(&self, line: &str) {
        self.multi.suspend(|| eprintln!("fwsvm: {line}"));
    }

    fn main_line(&mut self) -> &ProgressBar {
        if self.main.is_none() {
            let bar = if self.total > 0 {
                let style = ProgressStyle::with_template(
                    "fwsvm: {bar:30.cyan/blue} {pos}/{len} pairs  {elapsed_precise}  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
                let bar = ProgressBar::new(self.total as u64).with_style(style);
                bar.set_position(self.done as u64);
                bar
            } else {
                let style = ProgressStyle::with_template("fwsvm: {spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner());
                ProgressBar::new_spinner().with_style(style)
            };
            self.main = Some(self.multi.add(bar));
        }
        self.main.as_ref().expect("set above")
    }

    fn status(&self, p: &Progress) -> String {
        let (name, value) = match self.measure {
            GapMeasure::Relative => ("relative gap", p.relative_gap),
            GapMeasure::Absolute => ("gap", p.gap),
        };
        format!(
            "step {}  {name} {value:.2e} (tol {:.0e})  {} SV  {:.1} s",
            p.iteration, self.tol, p.coreset_size, p.seconds
        )
    }

    fn clear(&mut self) {
        for (_, bar) in self.running.drain() {
            bar.finish_and_clear();
        }
        if let Some(bar) = self.main.take() {
            bar.finish_and_clear();
        }
    }
}

impl<M: Monitor> Drop for ProgressDisplay<M> {
    fn drop(&mut self) {
        self.clear();
    }
}

impl<M: Monitor> Monitor for ProgressDisplay<M> {
    fn progress(&mut self, p: &Progress) -> Result<()> {
        self.inner.progress(p)?;
        if self.level == 0 || !self.shown() || !self.is_live() {
            return Ok(());
        }
        let status = self.status(p);
        match p.task {
            None => self.main_line().set_message(status),
            Some(index) => {
                self.main_line();
                let label = self.labels.get(&index).cloned().unwrap_or_default();
                let multi = self.multi.clone();
                let bar = self.running.entry(index).or_insert_with(|| {
                    let style = ProgressStyle::with_template("fwsvm:   {prefix}  {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner());
                    multi.add(
                        ProgressBar::new_spinner()
                            .with_style(style)
                            .with_prefix(label),
                    )
                });
                bar.set_message(status);
            }
        }
        if let Some(main) = &self.main {
            main.tick();
        }
        Ok(())
    }

    fn wants_steps(&self) -> bool {
        self.inner.wants_steps()
    }

    fn step(&mut self, alpha: &[f64], entry: &crate::solver::HistoryEntry) {
        self.inner.step(alpha, entry);
    }

    fn log(&mut self, line: &str) {
        if self.level >= 2 {
            self.print(line);
        }
    }

    fn task_log(&mut self, task: &Task, line: &str) {
        if self.level >= 2 {
            let label = self.labels.get(&task.index).map_or("", String::as_str);
            self.print(&format!("{label} {line}"));
        }
    }

    fn task_started(&mut self, task: &Task) {
        self.inner.task_started(task);
        self.total = task.total;
        let what = match task.pair {
            Some((i, j)) if i < self.class_names.len() && j < self.class_names.len() => {
                format!("{} vs {}", self.class_names[i], self.class_names[j])
            }
            _ => task.label.clone(),
        };
        self.labels.insert(
            task.index,
            format!("[pair {}/{}: {what}]", task.index + 1, task.total),
        );
    }

    fn task_finished(&mut self, task: &Task, stats: &SolverStats) {
        self.inner.task_finished(task, stats);
        self.done += 1;
        if let Some(bar) = self.running.remove(&task.index) {
            bar.finish_and_clear();
        }
        let label = self.labels.remove(&task.index);
        if self.level >= 1 && self.shown() && self.is_live() {
            let done = self.done as u64;
            self.main_line().set_position(done);
        }
        if self.level >= 1 {
            self.print(&summary(label.as_deref(), stats));
        }
    }
}

/// `[pair 3/45: 1 vs 7] converged after 1234 steps: …`.
fn summary(label: Option<&str>, stats: &SolverStats) -> String {
    format!(
        "{}{} after {} steps: relative duality gap {:.2e}, {} support vectors, {} kernel columns, {:.2} s",
        label.map(|l| format!("{l} ")).unwrap_or_default(),
        stats.exit_reason.name(),
        stats.n_iter,
        stats.relative_gap,
        stats.n_active,
        stats.columns_computed,
        stats.seconds
    )
}

/// A [`Monitor`] that stops the run (with [`FwsvmError::Interrupted`](crate::FwsvmError)) once
/// its flag is set: Ctrl-C from Python's main thread or the command line's signal handler.
pub struct CancelMonitor(pub Option<std::sync::Arc<std::sync::atomic::AtomicBool>>);

impl Monitor for CancelMonitor {
    fn progress(&mut self, _p: &crate::solver::Progress) -> crate::Result<()> {
        match &self.0 {
            Some(flag) if flag.load(std::sync::atomic::Ordering::Relaxed) => {
                Err(crate::FwsvmError::Interrupted)
            }
            _ => Ok(()),
        }
    }
}
