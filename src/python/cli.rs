//! The command line (`crate::cli`) from Python: the wheel's `fwsvm-train`, `fwsvm-predict`
//! and `fwsvm-scale` scripts call it without importing scikit-learn, and print through
//! Python's `sys.stdout` / `sys.stderr` (so captured streams and notebooks see the output).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

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

/// Runs `command` (`train`, `predict` or `scale`) on `argv`; returns the exit status.
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

/// `svm-train`'s options parsed and checked (for `fwsvm grid`, which takes them too): a dict,
/// or `None` for `--help`. Raises `ValueError` with the command line's message.
#[pyfunction]
pub(crate) fn parse_train_options<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    prog: &str,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let options = crate::cli::parse_train_options(&argv, prog).map_err(PyValueError::new_err)?;
    let Some(o) = options else { return Ok(None) };
    let d = PyDict::new(py);
    d.set_item("svm_type", o.svm_type)?;
    d.set_item("kernel", o.kernel_name())?;
    d.set_item("degree", o.degree)?;
    d.set_item("gamma", o.gamma)?;
    d.set_item("coef0", o.coef0)?;
    d.set_item("C", o.cost)?;
    d.set_item("cache_size", o.cache_size)?;
    d.set_item("tol", o.tol)?;
    d.set_item("algorithm", &o.algorithm)?;
    d.set_item("n_jobs", o.threads)?;
    d.set_item("loss", &o.loss)?;
    d.set_item("quiet", o.quiet)?;
    d.set_item("training_file", &o.training_file)?;
    d.set_item("model_file", &o.model_file)?;
    d.set_item(
        "class_weight",
        PyDict::from_sequence(&o.weights.into_pyobject(py)?)?,
    )?;
    Ok(Some(d))
}

/// Refuses an output file that is one of the inputs (same path, symlink or hard link):
/// `ValueError` with the command line's message. `inputs` are `(what, path)` pairs.
#[pyfunction]
pub(crate) fn refuse_same_file(
    what: &str,
    path: &str,
    inputs: Vec<(String, Option<String>)>,
) -> PyResult<()> {
    let inputs: Vec<(&str, Option<&str>)> = inputs
        .iter()
        .map(|(w, p)| (w.as_str(), p.as_deref()))
        .collect();
    crate::cli::refuse_same_file((what, path), &inputs).map_err(PyValueError::new_err)
}

/// Writes `text` to the output file `path` as the command line does (atomically; standard
/// output through `out`, devices directly).
#[pyfunction]
pub(crate) fn write_output_file(
    py: Python<'_>,
    path: &str,
    text: &str,
    out: Py<PyAny>,
    err: Py<PyAny>,
) -> PyResult<()> {
    PyConsole { out, err }
        .serve(py, |console| crate::cli::write_text(path, text, console))?
        .map_err(pyo3::exceptions::PyOSError::new_err)
}
