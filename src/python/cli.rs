//! The command line (`crate::cli`) from Python: the wheel's `fwsvm-train`, `fwsvm-predict`,
//! `fwsvm-scale` and `fwsvm-grid` scripts call it without importing scikit-learn, and print through
//! Python's `sys.stdout` / `sys.stderr` (so captured streams and notebooks see the output).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::mpsc::Sender;

use super::interrupt::{Interruptible, Message};
use crate::cli::{Command, Console};

/// Sends the command's output to the thread that called it from Python: only that thread
/// touches Python objects (a thread running detached from the interpreter must not attach
/// and detach around each line: its thread state would be deleted under Python's `threading`).
struct ChannelConsole(Sender<Message>);

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

/// Runs `command` (`train`, `predict`, `scale` or `grid`) on `argv`, printing through `out`
/// and `err` (`sys.stdout.write`, `sys.stderr.write`); returns the exit status. Ctrl-C stops
/// it (the command cleans up and says so; then KeyboardInterrupt).
#[pyfunction]
pub(crate) fn cli_main(
    py: Python<'_>,
    command: &str,
    argv: Vec<String>,
    prog: String,
    out: Py<PyAny>,
    err: Py<PyAny>,
) -> PyResult<i32> {
    let command = Command::from_name(command)
        .ok_or_else(|| PyValueError::new_err(format!("unknown command {command:?}")))?;
    let call = Interruptible::start(py)?;
    let stop = call.stop_flag();
    call.serve(py, Some((&out, &err)), |lines| {
        crate::cli::run(command, &argv, &prog, &mut ChannelConsole(lines), stop)
    })
}
