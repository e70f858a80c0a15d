//! The command line: `fwsvm train | predict | scale | grid`, flag- and file-compatible with
//! LIBSVM's `svm-train`, `svm-predict`, `svm-scale` and `tools/grid.py` (also `fwsvm-train`,
//! `fwsvm-predict`, `fwsvm-scale`, `fwsvm-grid`).
//!
//! Implemented once, here: the `fwsvm` binary (`cargo install fwsvm --features cli`) runs it,
//! and the Python wheel's console scripts reach it through the extension module without
//! importing NumPy or scikit-learn. `train` writes LIBSVM model files (LIBSVM's `svm-predict`
//! reads them and predicts the same); `predict` reads models written by LIBSVM's `svm-train`
//! (every `svm_type`); `scale` writes what `svm-scale` writes, byte for byte; `grid` searches
//! C and γ of C-SVC over grid.py's log2 grids, each point's rate the accuracy `train -v n`
//! prints for it.
//!
//! Errors are one line on stderr (`prog: error: …`) and exit status 1; Ctrl-C is exit status
//! 130. An output file that is one of the inputs (same path, symlink or hard link) is refused
//! before anything is read, and every output is written to a temporary file in its folder and
//! renamed into place once complete, so an error or Ctrl-C never leaves a half-written file or
//! destroys an existing one.
//!
//! LIBSVM's `-s` types are LIBSVM's models: `-s 0` C-SVC is [`Svc`](crate::Svc) with the hinge
//! loss at LIBSVM's C (`--loss squared_hinge` trains the L2-SVM instead, whose C is on another
//! scale), `-s 1` ν-SVC is [`Svc`](crate::Svc) with `nu`, and `-s 2` one-class SVM, `-s 3`
//! ε-SVR (`-p` its ε) and `-s 4` ν-SVR are [`NuOneClass`](crate::NuOneClass),
//! [`EpsilonSvr`](crate::EpsilonSvr) and [`NuSvr`](crate::NuSvr).

mod args;
mod files;

mod grid;
mod predict;
mod scale;
mod train;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::error::FwsvmError;

/// Where a command's output and messages go: the process's stdout and stderr, or (from Python)
/// `sys.stdout` and `sys.stderr`, so that notebooks and captured streams see them.
pub trait Console {
    /// Writes to standard output.
    fn out(&mut self, text: &str) -> std::io::Result<()>;
    /// Writes to standard error.
    fn err(&mut self, text: &str);
}

/// The process's own standard output and error.
pub struct StdConsole;

impl Console for StdConsole {
    fn out(&mut self, text: &str) -> std::io::Result<()> {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()
    }

    fn err(&mut self, text: &str) {
        eprint!("{text}");
    }
}

/// The commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `svm-train`.
    Train,
    /// `svm-predict`.
    Predict,
    /// `svm-scale`.
    Scale,
    /// LIBSVM's `tools/grid.py`.
    Grid,
}

impl Command {
    /// The command named `name` (`train`, `predict`, `scale`, `grid`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "train" => Some(Command::Train),
            "predict" => Some(Command::Predict),
            "scale" => Some(Command::Scale),
            "grid" => Some(Command::Grid),
            _ => None,
        }
    }
}

/// A problem reported as one line and exit status 1.
#[derive(Debug)]
pub(crate) enum CliError {
    /// A usage error (argparse's messages, with a pointer to `--help`).
    Usage(String),
    /// Anything else, as is.
    Plain(String),
    /// The crate's errors (files, parameters, data).
    Fwsvm(FwsvmError),
}

impl CliError {
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        CliError::Usage(message.into())
    }

    pub(crate) fn plain(message: impl Into<String>) -> Self {
        CliError::Plain(message.into())
    }
}

impl From<FwsvmError> for CliError {
    fn from(e: FwsvmError) -> Self {
        CliError::Fwsvm(e)
    }
}

/// What a command needs besides its arguments.
pub(crate) struct Context<'a> {
    pub prog: &'a str,
    pub console: &'a mut dyn Console,
    pub cancel: Arc<AtomicBool>,
}

impl Context<'_> {
    /// Prints a line to standard output unless `quiet`.
    pub fn say(&mut self, quiet: bool, line: &str) -> Result<(), CliError> {
        if quiet {
            return Ok(());
        }
        self.console
            .out(&format!("{line}\n"))
            .map_err(|e| FwsvmError::io("<stdout>", &e).into())
    }

    pub fn warn(&mut self, line: &str) {
        self.console.err(&format!("{line}\n"));
    }
}

/// Runs `command` with `argv` (without the program name); `prog` names the program in
/// messages. Returns the exit status: 0, 1 for an error (one line on the console's stderr),
/// 130 when `cancel` was set (Ctrl-C).
pub fn run(
    command: Command,
    argv: &[String],
    prog: &str,
    console: &mut dyn Console,
    cancel: Arc<AtomicBool>,
) -> i32 {
    let mut context = Context {
        prog,
        console,
        cancel,
    };
    let result = match command {
        Command::Train => train::run(argv, &mut context),
        Command::Predict => predict::run(argv, &mut context),
        Command::Scale => scale::run(argv, &mut context),
        Command::Grid => grid::run(argv, &mut context),
    };
    let message = match result {
        Ok(()) => return 0,
        Err(CliError::Fwsvm(FwsvmError::Interrupted)) => {
            context.console.err(&format!("{prog}: interrupted\n"));
            return 130;
        }
        Err(CliError::Usage(m)) => format!("{m} (see {prog} --help)"),
        Err(CliError::Plain(m)) => m,
        Err(CliError::Fwsvm(e)) => e.to_string(),
    };
    let message = if message.trim().is_empty() {
        "unknown error".to_string()
    } else {
        message.replace('\n', " ")
    };
    context.console.err(&format!("{prog}: error: {message}\n"));
    1
}

/// The `fwsvm` binary's entry: `fwsvm train|predict|scale …` (or, as `fwsvm-train` and the
/// other names, the command in the program's name). Ctrl-C sets the cancel flag.
pub fn main_from_args(args: Vec<String>, cancel: Arc<AtomicBool>) -> i32 {
    let program = args
        .first()
        .map(|p| {
            std::path::Path::new(p)
                .file_name()
                .map_or(p.clone(), |n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "fwsvm".into());
    let mut console = StdConsole;
    for (suffix, command) in [
        ("-train", Command::Train),
        ("-predict", Command::Predict),
        ("-scale", Command::Scale),
        ("-grid", Command::Grid),
    ] {
        if program.ends_with(suffix) {
            return run(command, &args[1..], &program, &mut console, cancel);
        }
    }
    match args.get(1).and_then(|c| Command::from_name(c)) {
        Some(command) => {
            let prog = format!("fwsvm {}", args[1]);
            run(command, &args[2..], &prog, &mut console, cancel)
        }
        None => {
            console.err(
                "usage: fwsvm {train,predict,scale,grid} ...\n\n\
                 LIBSVM's svm-train, svm-predict, svm-scale and tools/grid.py (see fwsvm <command> --help).\n",
            );
            if args.get(1).is_some_and(|a| a == "--help" || a == "-h") {
                0
            } else {
                2
            }
        }
    }
}
