//! The command line (`crate::cli`) from Python: the wheel's `fwsvm-train`, `fwsvm-predict`,
//! `fwsvm-scale` and `fwsvm-grid` scripts call it without importing scikit-learn, and print through
//! Python's `sys.stdout` / `sys.stderr` (so captured streams and notebooks see the output).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::svc::CancelToken;
use crate::cli::{Command, Console};

/// A console message for the calling Python thread.
enum Message {
    Out(String),
    Err(String),
}

/// Sends the command's output to the thread that called it from Python: only that thread
/// touches Python objects (a thread running detached from the interpreter must not attach
/// and detach around each line: its thread state would be deleted under Python's `threading`).
struct ChannelConsole(std::sync::mpsc::Sender<Message>);

impl Console for ChannelConsole {
    fn out(&mut self, text: &str) -> std::io::Result<()> {
        self.0
            .send(Message::Out(text.to_owned()))
            .map_err(|_| std::io::Error::other("the Python caller is gone"))
    }

    fn err(&mut self, text: &str) {
        let _ = self.0.send(Message::Err(text.to_owned()));
    }
}

/// Writes through two Python callables (`sys.stdout.write`, `sys.stderr.write`), from the
/// thread that holds them.
struct PyConsole {
    out: Py<PyAny>,
    err: Py<PyAny>,
}

impl PyConsole {
    /// Runs `body` on a thread of its own with a console whose lines this (attached) thread
    /// writes as they come, detached from the interpreter while it waits.
    fn serve<R: Send>(
        &self,
        py: Python<'_>,
        body: impl FnOnce(&mut dyn Console) -> R + Send,
    ) -> PyResult<R> {
        let (tx, rx) = std::sync::mpsc::channel::<Message>();
        std::thread::scope(|scope| {
            let worker = scope.spawn(move || body(&mut ChannelConsole(tx)));
            let mut failure = None;
            let mut rx = rx;
            loop {
                // The receiver is Send but not Sync: it goes into the detached closure and back.
                let (received, back) = py.detach(move || (rx.recv(), rx));
                rx = back;
                let Ok(message) = received else { break };
                let written = match message {
                    Message::Out(text) => self.out.call1(py, (text,)),
                    Message::Err(text) => self.err.call1(py, (text,)),
                };
                if let Err(e) = written {
                    failure.get_or_insert(e);
                }
            }
            let result = py
                .detach(|| worker.join())
                .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("the command panicked"))?;
            match failure {
                Some(e) => Err(e),
                None => Ok(result),
            }
        })
    }
}

/// Runs `command` (`train`, `predict`, `scale` or `grid`) on `argv`; returns the exit status.
#[pyfunction]
#[pyo3(signature = (command, argv, prog, out, err, cancel=None))]
pub(crate) fn cli_main(
    py: Python<'_>,
    command: &str,
    argv: Vec<String>,
    prog: String,
    out: Py<PyAny>,
    err: Py<PyAny>,
    cancel: Option<PyRef<'_, CancelToken>>,
) -> PyResult<i32> {
    let command = Command::from_name(command)
        .ok_or_else(|| PyValueError::new_err(format!("unknown command {command:?}")))?;
    let flag = cancel.map_or_else(Default::default, |t| t.flag.clone());
    PyConsole { out, err }.serve(py, |console| {
        crate::cli::run(command, &argv, &prog, console, flag)
    })
}
