//! Long native calls that Ctrl-C stops, with their output on Python's streams.
//!
//! Python runs its signal handlers on the main thread only, between bytecodes: a native call
//! holding that thread would ignore Ctrl-C until it returned. So a long call's work runs on a
//! thread of its own, detached from the interpreter, while the calling thread waits for it in
//! 50 ms slices and, between them ([`Interruptible::run`]):
//!
//! - runs Python's signal handlers: Ctrl-C raises `KeyboardInterrupt`, the work's stop flag is
//!   set, the work stops at its next poll (about 0.1 s) and the exception propagates once it has;
//! - writes the lines a command-line run sends (`sys.stdout` / `sys.stderr`);
//! - when `sys.stderr` is not the process's stderr (a redirected stream, pytest's capture, a
//!   Jupyter cell), writes the progress the fit's display queued, through
//!   `fwsvm._progress.StreamProgress` (lines, and a live bar in Jupyter). Without this the
//!   display writes to file descriptor 2, which such streams never see.
//!
//! Only the calling thread touches Python objects: no solver thread attaches to the
//! interpreter. The threads that run the work are kept between calls ([`call_threads`](call_threads::scope)):
//! starting one costs about 20 µs, which a prediction on one row would pay on every call.

use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::prelude::*;

use super::progress::ProgressQueue;
use crate::progress::{ProgressSink, set_thread_sink};

/// How long the calling thread waits for the work between its checks.
const SLICE: Duration = Duration::from_millis(50);

/// What the work sends the calling thread.
pub(crate) enum Message {
    /// A line for `sys.stdout` (a command-line run's output).
    Out(String),
    /// A line for `sys.stderr`.
    Err(String),
    /// The work returned.
    Done,
}

/// A `sys.stderr` that is not the process's stderr: its writer, and the sink feeding it.
struct StreamProgress {
    writer: Py<PyAny>,
    sink: Arc<dyn ProgressSink>,
}

/// One native call's stop flag and progress routing; see the module documentation.
///
/// Progress displays created on the calling thread while it lives (the fit's monitor) write to
/// Python's `sys.stderr` when that is not the process's stderr; dropping it writes what is
/// left, closes a live bar and restores the thread's routing.
pub(crate) struct Interruptible {
    stop: Arc<AtomicBool>,
    progress: Option<StreamProgress>,
    previous_sink: Option<Option<Arc<dyn ProgressSink>>>,
    /// Not `Send`: dropping it restores the progress routing of the thread that created it.
    _on_this_thread: PhantomData<*const ()>,
}

impl Interruptible {
    /// Starts a call: a fresh stop flag, and the thread's progress routed to `sys.stderr` when
    /// that is not the process's stderr.
    pub(crate) fn start(py: Python<'_>) -> PyResult<Self> {
        let progress = stream_progress(py)?;
        let previous_sink = progress
            .as_ref()
            .map(|p| set_thread_sink(Some(Arc::clone(&p.sink))));
        Ok(Self {
            stop: Arc::default(),
            progress,
            previous_sink,
            _on_this_thread: PhantomData,
        })
    }

    /// The flag Ctrl-C sets (for a fit's [`CancelMonitor`](crate::progress::CancelMonitor)).
    pub(crate) fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Whether Ctrl-C asked the work to stop (for loops over row blocks and file chunks).
    pub(crate) fn stop_check(&self) -> impl Fn() -> bool + Send + Sync + use<> {
        let stop = self.stop_flag();
        move || stop.load(Ordering::Relaxed)
    }

    /// Runs `work` on a thread of its own while this thread waits, runs the signal handlers
    /// and writes progress; `Err(KeyboardInterrupt)` once the work stopped after Ctrl-C.
    ///
    /// The work borrows the caller's data, so the call returns only after it has stopped: a
    /// second Ctrl-C while a stopped work finishes its current block (about 0.1 s; a read
    /// blocked on a stalled pipe: until the read returns) is not seen.
    pub(crate) fn run<R: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce() -> R + Send,
    ) -> PyResult<R> {
        self.serve(py, None, |_| work())
    }

    /// As [`run`](Self::run), and the lines `work` sends on its channel are written by
    /// `console` (`sys.stdout.write`, `sys.stderr.write`) as they come.
    pub(crate) fn serve<R: Send>(
        &self,
        py: Python<'_>,
        console: Option<(&Py<PyAny>, &Py<PyAny>)>,
        work: impl FnOnce(Sender<Message>) -> R + Send,
    ) -> PyResult<R> {
        let (tx, rx) = mpsc::channel::<Message>();
        let sink = self.progress.as_ref().map(|p| Arc::clone(&p.sink));
        let job = move || {
            let previous = set_thread_sink(sink);
            let done = tx.clone();
            let out = panic::catch_unwind(AssertUnwindSafe(|| work(tx)));
            let _ = done.send(Message::Done);
            set_thread_sink(previous);
            out
        };
        let ran = call_threads::scope(job, |finished| {
            // Ctrl-C (or a progress writer that fails) stops the work and is the call's error;
            // a console line that cannot be written does not stop it (the command runs on, as
            // LIBSVM's tools do when their output is closed) and is the error otherwise.
            let mut failure: Option<PyErr> = None;
            let mut checked = Instant::now();
            let mut rx = rx;
            loop {
                // The receiver is Send but not Sync: it goes into the detached closure and back.
                let (received, back) = py.detach(move || (rx.recv_timeout(SLICE), rx));
                rx = back;
                let written = match received {
                    Ok(Message::Done) | Err(RecvTimeoutError::Disconnected) => break,
                    Ok(Message::Out(text)) => write(py, console.map(|c| c.0), text),
                    Ok(Message::Err(text)) => write(py, console.map(|c| c.1), text),
                    Err(RecvTimeoutError::Timeout) => Ok(()),
                };
                if let Err(e) = written {
                    // Ctrl-C may land in a blocked write (a full pipe): that one stops the work.
                    if !e.is_instance_of::<PyException>(py) {
                        self.stop.store(true, Ordering::Relaxed);
                    }
                    failure.get_or_insert(e);
                }
                // Every 50 ms, also while lines keep coming (a command streaming its output).
                if !self.stop.load(Ordering::Relaxed) && checked.elapsed() >= SLICE {
                    checked = Instant::now();
                    if let Err(e) = self.pump(py).and_then(|()| py.check_signals()) {
                        self.stop.store(true, Ordering::Relaxed);
                        failure = Some(e);
                    }
                }
            }
            (py.detach(|| finished.wait()), failure)
        });
        match ran {
            Ok((Some(Ok(out)), failure)) => failure.map_or(Ok(out), Err),
            Ok((Some(Err(panic)), _)) => Err(PyRuntimeError::new_err(format!(
                "fwsvm's native code failed (a bug; please report it): {}",
                panic_message(&*panic)
            ))),
            Ok((None, _)) => Err(PyRuntimeError::new_err(
                "fwsvm's worker thread ended without an answer (a bug; please report it)",
            )),
            Err(e) => Err(PyRuntimeError::new_err(format!(
                "fwsvm cannot start a thread for its work: {e}"
            ))),
        }
    }

    /// Writes the progress queued since the last call.
    fn pump(&self, py: Python<'_>) -> PyResult<()> {
        match &self.progress {
            Some(p) => p.writer.call_method0(py, "pump").map(drop),
            None => Ok(()),
        }
    }
}

impl Drop for Interruptible {
    fn drop(&mut self) {
        if let Some(previous) = self.previous_sink.take() {
            set_thread_sink(previous);
        }
        if let Some(p) = &self.progress {
            Python::attach(|py| {
                if let Err(e) = p.writer.call_method0(py, "close") {
                    e.write_unraisable(py, None);
                }
            });
        }
    }
}

/// Runs `work(stop)` as [`Interruptible::run`] does; `stop` says whether Ctrl-C asked it to stop.
pub(crate) fn interruptible<R: Send>(
    py: Python<'_>,
    work: impl FnOnce(&(dyn Fn() -> bool + Send + Sync)) -> R + Send,
) -> PyResult<R> {
    let call = Interruptible::start(py)?;
    let stop = call.stop_check();
    call.run(py, || work(&stop))
}

/// The message of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "a panic"
    }
}

/// `text` through `writer` (`sys.stdout.write`, `sys.stderr.write`); nothing without one.
fn write(py: Python<'_>, writer: Option<&Py<PyAny>>, text: String) -> PyResult<()> {
    writer.map_or(Ok(()), |w| w.call1(py, (text,)).map(drop))
}

/// A writer for `sys.stderr` when it is not the process's stderr (then the native display
/// writes to file descriptor 2 itself, with its live line on a terminal).
fn stream_progress(py: Python<'_>) -> PyResult<Option<StreamProgress>> {
    let sys = py.import("sys")?;
    let stderr = sys.getattr("stderr")?;
    if stderr.is_none() || stderr.is(&sys.getattr("__stderr__")?) {
        return Ok(None);
    }
    let writer = py
        .import("fwsvm._progress")?
        .getattr("StreamProgress")?
        .call1((stderr,))?;
    let queue = writer.getattr("queue")?.cast_into::<ProgressQueue>()?;
    let sink: Arc<dyn ProgressSink> = queue.get().sink();
    Ok(Some(StreamProgress {
        writer: writer.unbind(),
        sink,
    }))
}

/// Threads that run calls' work, kept idle between calls, one call at a time each (calls from
/// several Python threads take several).
#[allow(unsafe_code)] // one lifetime erasure, bounded by `Finished`
mod call_threads {
    use std::sync::Mutex;
    use std::sync::mpsc::{self, Receiver, Sender, SyncSender};

    /// A call's work, its borrows erased (see [`scope`]).
    type Job = Box<dyn FnOnce() + Send + 'static>;

    /// At most this many idle threads are kept; more end when their call does.
    const MAX_IDLE: usize = 4;

    /// The idle threads' job queues, with the process that started them (a forked child does
    /// not have its parent's threads: it starts its own).
    static IDLE: Mutex<Vec<(u32, Sender<Job>)>> = Mutex::new(Vec::new());

    /// A started job's result; see [`scope`].
    pub(super) struct Finished<R>(Option<Receiver<R>>);

    impl<R> Finished<R> {
        /// Waits for the job's result; `None` if it ended without one (it panicked outside its
        /// own `catch_unwind`) or was waited for already.
        pub(super) fn wait(&mut self) -> Option<R> {
            self.0.take().and_then(|rx| rx.recv().ok())
        }
    }

    /// Runs `job` on an idle call thread (or a new one) while `body` runs on this one, and
    /// returns once both have: `body` waits for the job's result through its [`Finished`], and
    /// if it returns (or unwinds) without, this waits for the job before anything `job`
    /// borrows can go out of scope.
    pub(super) fn scope<'a, R: Send + 'a, T>(
        job: impl FnOnce() -> R + Send + 'a,
        body: impl FnOnce(&mut Finished<R>) -> T,
    ) -> std::io::Result<T> {
        /// Waits for the job when dropped (also on an unwind from `body`).
        struct Guard<R>(Finished<R>);
        impl<R> Drop for Guard<R> {
            fn drop(&mut self) {
                let _ = self.0.wait();
            }
        }

        let (result_tx, result_rx): (SyncSender<R>, _) = mpsc::sync_channel(1);
        let job: Box<dyn FnOnce() + Send + 'a> = Box::new(move || {
            let _ = result_tx.send(job());
        });
        // SAFETY: only the lifetime changes. The guard below returns once the result is sent
        // (the work, with everything it borrows, consumed by then; what is left is the sender)
        // or the sender is dropped without one (the job dropped or unwound), and `scope`
        // returns only after the guard: the borrows outlive the job's use of them. A job that
        // never reaches a thread is dropped here, on this thread.
        let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Job>(job) };
        let mut guard = Guard(Finished(Some(result_rx)));
        start(job)?;
        Ok(body(&mut guard.0))
    }

    /// Sends `job` to an idle call thread, or starts one for it.
    fn start(job: Job) -> std::io::Result<()> {
        let pid = std::process::id();
        let idle = IDLE.lock().ok().and_then(|mut idle| {
            idle.retain(|(p, _)| *p == pid);
            idle.pop()
        });
        let job = match idle {
            Some((_, queue)) => match queue.send(job) {
                Ok(()) => return Ok(()),
                Err(returned) => returned.0,
            },
            None => job,
        };
        let (queue, jobs) = mpsc::channel::<Job>();
        let own = queue.clone();
        std::thread::Builder::new()
            .name("fwsvm-call".into())
            .spawn(move || serve(own, jobs, pid))?;
        // The new thread holds its receiver until it has run a job.
        let _ = queue.send(job);
        Ok(())
    }

    /// A call thread: runs jobs, and goes back to the idle list between them.
    fn serve(own: Sender<Job>, jobs: Receiver<Job>, pid: u32) {
        while let Ok(job) = jobs.recv() {
            job();
            match IDLE.lock() {
                Ok(mut idle) if idle.len() < MAX_IDLE => idle.push((pid, own.clone())),
                _ => return,
            }
        }
    }
}
