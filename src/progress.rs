//! Progress for long fits: a [`Monitor`] that draws a live status line (and, for one-vs-one
//! fits, a pairs-done bar with one line per running pair) and prints a labelled summary line
//! per solved problem.
//!
//! Nothing is drawn for fits shorter than [`ProgressDisplay::DELAY`]. By default everything goes
//! to the process's stderr: live lines with [`indicatif`], only when stderr is a terminal (in a
//! log file they would be noise), and the summary lines and the solver's verbose log either
//! way. A front end whose own error stream is not the process's — Python's `sys.stderr`
//! redirected, a Jupyter cell — installs a [`ProgressSink`] on the thread that creates the
//! display ([`set_thread_sink`]); the display then hands it the lines, and the live state when
//! the sink draws one. The display is fed by the monitor hooks the solver calls about every
//! 0.1 s, never from the step loop itself.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::Result;
use crate::solver::{Monitor, Progress, SolverStats, Task};

/// What the solver compares with `tol`: the live line shows it, the summary line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapMeasure {
    /// The duality gap relative to the objective (the squared hinge's default stopping rule).
    Relative,
    /// The absolute duality gap (`stopping="absolute_gap"`).
    Absolute,
    /// The largest KKT violation, LIBSVM's `-e` (the hinge loss's SMO): the duality gap is
    /// reported but is not what stopped the solve.
    MaxViolation,
}

impl GapMeasure {
    /// What is compared with `tol`, as the summary line names it.
    pub fn name(self) -> &'static str {
        match self {
            GapMeasure::Relative => "relative duality gap",
            GapMeasure::Absolute => "duality gap",
            GapMeasure::MaxViolation => "largest KKT violation",
        }
    }
}

/// What a finished fit deserves a warning for, for a front end to raise (Python's
/// `ConvergenceWarning` or `UserWarning`) or print: see [`fit_warnings`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FitWarning {
    /// A solve that did not meet `tol` (rather than a model that is only a local optimum).
    pub convergence: bool,
    /// The sentence to show.
    pub message: String,
}

/// The warnings of solves `stats` (one per pair of a one-vs-one fit) that stopped against `tol`
/// on `measure`: solves stopped at `max_iter` or the time limit (naming the worst value of
/// `measure` among them); solves stopped because no step improved the objective in floating point
/// (a degenerate kernel, or a `tol` below what float64 certifies); and, with `kernel`
/// (`(its name, the model's name)`), a dual that is not concave (αᵀQα ≤ 0 at the end: a kernel
/// that is not positive semi-definite for these parameters, e.g. the sigmoid).
pub fn fit_warnings(
    stats: &[SolverStats],
    tol: f64,
    measure: GapMeasure,
    kernel: Option<(&str, &str)>,
) -> Vec<FitWarning> {
    use crate::format::{g, repr};
    use crate::solver::ExitReason;
    let worst = |solves: &[&SolverStats], value: fn(&SolverStats) -> f64| {
        solves.iter().map(|s| value(s)).fold(f64::NAN, f64::max)
    };
    let mut out = Vec::new();
    let early: Vec<&SolverStats> = stats
        .iter()
        .filter(|s| {
            matches!(
                s.exit_reason,
                ExitReason::MaxIterations | ExitReason::TimeLimit
            )
        })
        .collect();
    if let Some(first) = early.first() {
        let value = match measure {
            GapMeasure::Relative => worst(&early, |s| s.relative_gap),
            GapMeasure::Absolute | GapMeasure::MaxViolation => worst(&early, |s| s.gap),
        };
        out.push(FitWarning {
            convergence: true,
            message: format!(
                "Solver terminated early ({}) with {} {}, before meeting tol={}. Consider \
                 increasing max_iter.",
                first.exit_reason.name(),
                measure.name(),
                g(value, 3),
                repr(tol)
            ),
        });
    }
    let stuck: Vec<&SolverStats> = stats
        .iter()
        .filter(|s| s.exit_reason == ExitReason::NoProgress)
        .collect();
    if !stuck.is_empty() {
        out.push(FitWarning {
            convergence: true,
            message: format!(
                "The solver made no progress in floating point before meeting tol={} (relative \
                 duality gap {}): the kernel may be degenerate for these parameters (e.g. all values \
                 0 or equal), or tol is below what double precision can certify. The model may be a \
                 constant predictor.",
                repr(tol),
                g(worst(&stuck, |s| s.relative_gap), 3)
            ),
        });
    }
    if let Some((kernel, model)) = kernel
        && !stats.iter().all(|s| s.quadratic > 0.0)
    {
        out.push(FitWarning {
            convergence: false,
            message: format!(
                "The '{kernel}' kernel is not positive semi-definite for these parameters (αᵀQα ≤ 0): \
                 the {model} dual is not concave and the solution is only a local optimum. Use a smaller C \
                 or gamma, or another kernel."
            ),
        });
    }
    out
}

/// Where progress goes instead of the process's stderr: a front end's own error stream (Python's
/// `sys.stderr`, a notebook cell).
///
/// Called from the solver's threads, with no interpreter lock held: an implementation queues
/// what it gets and its front end writes it from a thread of its own.
pub trait ProgressSink: Send + Sync {
    /// A finished line (a summary, a line of the solver's log), `fwsvm: ` prefix included, no
    /// newline.
    fn line(&self, line: &str);

    /// Whether the sink draws live progress (an updating display); if not it gets lines only.
    fn live(&self) -> bool {
        false
    }

    /// The live state changed (at most ten times a second); `None`: the fit ended, clear it.
    fn update(&self, _state: Option<&LiveState>) {}
}

/// What a live display shows of a running fit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveState {
    /// The status of a single-problem fit (steps, gap against tol, support vectors, seconds);
    /// empty for one-vs-one fits.
    pub status: String,
    /// Sub-problems solved, of `total` (0 for a single-problem fit).
    pub done: usize,
    /// Sub-problems (one-vs-one pairs) in the fit; 0 for a single problem.
    pub total: usize,
    /// The running sub-problems, each `label  status`.
    pub running: Vec<String>,
}

thread_local! {
    static THREAD_SINK: RefCell<Option<Arc<dyn ProgressSink>>> = const { RefCell::new(None) };
}

/// Sends the progress of the displays (and [`LogToSink`]s) created on this thread from now on to
/// `sink`; `None` restores the process's stderr.
/// Returns the sink it replaces.
pub fn set_thread_sink(sink: Option<Arc<dyn ProgressSink>>) -> Option<Arc<dyn ProgressSink>> {
    THREAD_SINK.with(|s| s.replace(sink))
}

fn thread_sink() -> Option<Arc<dyn ProgressSink>> {
    THREAD_SINK.with(|s| s.borrow().clone())
}

/// The live state of a display whose output goes to a [`ProgressSink`].
#[derive(Default)]
struct SinkLive {
    status: String,
    running: BTreeMap<usize, String>,
    /// When the state was last sent (`None`: never, nothing to clear).
    sent: Option<Instant>,
}

/// A [`Monitor`] that shows progress on stderr (or the thread's [`ProgressSink`]) and forwards
/// every call to `inner` (which decides about interrupts).
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
    /// Where lines and live state go instead of stderr (then `multi` is hidden).
    sink: Option<Arc<dyn ProgressSink>>,
    sink_live: SinkLive,
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

    /// A sink's live state is sent at most this often.
    const SINK_INTERVAL: Duration = Duration::from_millis(100);

    /// A display at verbosity `level` (0, 1 or 2) for a solve stopping at `tol` in `measure`,
    /// writing to this thread's [`ProgressSink`] if one is set, else to stderr.
    pub fn new(inner: M, tol: f64, measure: GapMeasure, level: u8) -> Self {
        let sink = if level > 0 { thread_sink() } else { None };
        let target = if sink.is_some() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr_with_hz(10)
        };
        ProgressDisplay {
            inner,
            tol,
            measure,
            level,
            start: Instant::now(),
            multi: MultiProgress::with_draw_target(target),
            sink,
            sink_live: SinkLive::default(),
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

    /// Whether live lines are drawn (stderr is a terminal, or the sink draws them).
    pub fn is_live(&self) -> bool {
        match &self.sink {
            Some(sink) => sink.live(),
            None => !self.multi.is_hidden(),
        }
    }

    /// Prints the summary line of a single-problem fit (one-vs-one pairs print theirs as they
    /// finish) and clears the live line.
    pub fn finish(&mut self, stats: &SolverStats) {
        self.clear();
        if self.level >= 1 {
            self.print(&summary(None, stats, self.tol, self.measure));
        }
    }

    fn shown(&self) -> bool {
        self.start.elapsed() >= Self::DELAY
    }

    fn print(&self, line: &str) {
        match &self.sink {
            Some(sink) => sink.line(&format!("fwsvm: {line}")),
            None => self.multi.suspend(|| eprintln!("fwsvm: {line}")),
        }
    }

    /// Sends the sink its live state, at most every [`Self::SINK_INTERVAL`] unless `now`.
    fn send_live(&mut self, now: bool) {
        let Some(sink) = &self.sink else { return };
        let due = self
            .sink_live
            .sent
            .is_none_or(|t| t.elapsed() >= Self::SINK_INTERVAL);
        if !(now || due) {
            return;
        }
        let state = LiveState {
            status: self.sink_live.status.clone(),
            done: self.done,
            total: self.total,
            running: self.sink_live.running.values().cloned().collect(),
        };
        sink.update(Some(&state));
        self.sink_live.sent = Some(Instant::now());
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
            GapMeasure::MaxViolation => ("max violation", p.gap),
        };
        format!(
            "step {}  {name} {value:.2e} (tol {:.0e})  {} SV  {:.1} s",
            p.iteration, self.tol, p.coreset_size, p.seconds
        )
    }

    fn clear(&mut self) {
        if let Some(sink) = &self.sink
            && self.sink_live.sent.take().is_some()
        {
            sink.update(None);
        }
        self.sink_live.running.clear();
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
        if self.sink.is_some() {
            match p.task {
                None => self.sink_live.status = status,
                Some(index) => {
                    let label = self.labels.get(&index).map_or("", String::as_str);
                    let line = format!("{label}  {status}");
                    self.sink_live.running.insert(index, line);
                }
            }
            self.send_live(false);
            return Ok(());
        }
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
        self.sink_live.running.remove(&task.index);
        if self.level >= 1 && self.shown() && self.is_live() {
            if self.sink.is_some() {
                self.send_live(true);
            } else {
                let done = self.done as u64;
                self.main_line().set_position(done);
            }
        }
        if self.level >= 1 {
            self.print(&summary(label.as_deref(), stats, self.tol, self.measure));
        }
    }
}

/// `[pair 3/45: 1 vs 7] converged after 1234 steps (tol 1e-2 on the relative duality gap): …`
/// — what the solver compared with `tol` is named first, then the gap it ended with.
fn summary(label: Option<&str>, stats: &SolverStats, tol: f64, measure: GapMeasure) -> String {
    let gaps = match measure {
        GapMeasure::Relative => format!(
            "relative duality gap {:.2e}, absolute {:.2e}",
            stats.relative_gap, stats.gap
        ),
        GapMeasure::Absolute | GapMeasure::MaxViolation => format!(
            "duality gap {:.2e}, relative {:.2e}",
            stats.gap, stats.relative_gap
        ),
    };
    format!(
        "{}{} after {} steps (tol {tol:.0e} on the {}): {gaps}, {} support vectors, {} kernel columns, {:.2} s",
        label.map(|l| format!("{l} ")).unwrap_or_default(),
        stats.exit_reason.name(),
        stats.n_iter,
        measure.name(),
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

/// A [`Monitor`] for fits that show no [`ProgressDisplay`] but may log (SGD's epochs at
/// `verbose`): sends the solver's log to the [`ProgressSink`] of the thread that created it (the
/// fit may log from a thread pool's thread), else to stderr, and forwards everything else to
/// `inner`.
pub struct LogToSink<M: Monitor> {
    inner: M,
    sink: Option<Arc<dyn ProgressSink>>,
}

impl<M: Monitor> LogToSink<M> {
    /// Wraps `inner`, taking this thread's sink (see [`set_thread_sink`]).
    pub fn new(inner: M) -> Self {
        LogToSink {
            inner,
            sink: thread_sink(),
        }
    }
}

impl<M: Monitor> Monitor for LogToSink<M> {
    fn progress(&mut self, p: &Progress) -> Result<()> {
        self.inner.progress(p)
    }

    fn wants_steps(&self) -> bool {
        self.inner.wants_steps()
    }

    fn step(&mut self, alpha: &[f64], entry: &crate::solver::HistoryEntry) {
        self.inner.step(alpha, entry);
    }

    fn log(&mut self, line: &str) {
        match &self.sink {
            Some(sink) => sink.line(&format!("fwsvm: {line}")),
            None => self.inner.log(line),
        }
    }

    fn task_started(&mut self, task: &Task) {
        self.inner.task_started(task);
    }

    fn task_finished(&mut self, task: &Task, stats: &SolverStats) {
        self.inner.task_finished(task, stats);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::ExitReason;

    fn solve(exit_reason: ExitReason, gap: f64, quadratic: f64) -> SolverStats {
        SolverStats {
            exit_reason,
            gap,
            relative_gap: gap / 10.0,
            quadratic,
            ..SolverStats::default()
        }
    }

    #[test]
    fn fit_warnings_name_the_early_stop_the_stall_and_a_concave_failure() {
        let fine = [solve(ExitReason::Converged, 1e-4, 1.0)];
        assert!(
            fit_warnings(
                &fine,
                1e-3,
                GapMeasure::MaxViolation,
                Some(("rbf", "hinge-SVM"))
            )
            .is_empty()
        );

        let stats = [
            solve(ExitReason::MaxIterations, 277.3, 1.0),
            solve(ExitReason::TimeLimit, 12.0, 1.0),
            solve(ExitReason::NoProgress, 0.5, -2.0),
        ];
        let found = fit_warnings(
            &stats,
            1e-5,
            GapMeasure::MaxViolation,
            Some(("sigmoid", "hinge-SVM")),
        );
        assert_eq!(found.len(), 3);
        assert!(found[0].convergence);
        assert_eq!(
            found[0].message,
            "Solver terminated early (max_iter) with largest KKT violation 277, before meeting \
             tol=1e-05. Consider increasing max_iter."
        );
        assert!(found[1].convergence && found[1].message.contains("relative duality gap 0.05)"));
        assert!(!found[2].convergence && found[2].message.starts_with("The 'sigmoid' kernel"));
        // Without a kernel to name, no check of the concavity.
        assert_eq!(
            fit_warnings(&stats, 1e-5, GapMeasure::Relative, None).len(),
            2
        );
    }
}
