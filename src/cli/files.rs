//! Output files that lose nothing: an output that is one of the inputs is refused before
//! anything is read, and outputs are written atomically (see `model_file::atomic`).

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::{CliError, Context};
use crate::error::FwsvmError;

/// Refuses an output that is one of the inputs (the same path, a symlink or a hard link to it).
/// `output` and each input are `(what, path)`, e.g. `("model file", "d.svm")`. Only an output
/// that exists as a regular file can destroy an input (writing to a device or a pipe does not),
/// so only that is refused. Called before anything is read.
pub(crate) fn refuse_same_file(
    output: (&str, &str),
    inputs: &[(&str, Option<&str>)],
) -> Result<(), CliError> {
    let (what, path) = output;
    let Ok(out) = std::fs::metadata(path) else {
        return Ok(()); // does not exist yet, or a problem the write will report
    };
    if !out.is_file() {
        return Ok(());
    }
    for &(in_what, in_path) in inputs {
        let Some(in_path) = in_path else { continue };
        let Ok(input) = std::fs::metadata(in_path) else {
            continue; // a missing input is reported when it is read
        };
        if (input.dev(), input.ino()) == (out.dev(), out.ino()) {
            return Err(CliError::plain(format!(
                "the {what} '{path}' is the {in_what} '{in_path}': refusing to overwrite an input"
            )));
        }
    }
    Ok(())
}

/// Whether `path` is this process's standard output (`/dev/stdout`, or the file it is
/// redirected to).
fn is_own_stdout(path: &Path) -> bool {
    let (Ok(target), Ok(own)) = (
        std::fs::metadata(path),
        std::fs::metadata("/proc/self/fd/1").or_else(|_| std::fs::metadata("/dev/stdout")),
    ) else {
        return false;
    };
    (target.dev(), target.ino()) == (own.dev(), own.ino())
}

/// A writer that stops with [`std::io::ErrorKind::Interrupted`] once the context's cancel flag
/// is set (Ctrl-C while a large output is written).
struct Cancellable<'a, W: Write> {
    inner: W,
    cancel: &'a std::sync::atomic::AtomicBool,
}

impl<W: Write> Write for Cancellable<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Not ErrorKind::Interrupted: `write_all` retries those.
        if self.cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::other("interrupted"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the output file `path` through `fill`: this process's standard output through the
/// console (so that what else is printed there is kept, as when `/dev/stdout` is redirected to a
/// file), a device or pipe directly, and a regular file atomically (a temporary in its folder
/// renamed into place; the mode `open` would give).
pub(crate) fn write_output(
    context: &mut Context<'_>,
    path: &str,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let cancel = context.cancel.clone();
    write_unless_cancelled(context, path, fill).map_err(|e| {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            FwsvmError::Interrupted.into()
        } else {
            e
        }
    })
}

fn write_unless_cancelled(
    context: &mut Context<'_>,
    path: &str,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let cancel = context.cancel.clone();
    if is_own_stdout(Path::new(path)) {
        let mut buffer = Vec::new();
        fill(&mut Cancellable {
            inner: &mut buffer,
            cancel: &cancel,
        })
        .map_err(|e| FwsvmError::io(path, &e))?;
        context
            .console
            .out(&String::from_utf8_lossy(&buffer))
            .map_err(|e| FwsvmError::io(path, &e))?;
        return Ok(());
    }
    let direct = path.starts_with("/dev/") || path.starts_with("/proc/");
    if direct {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| FwsvmError::io(path, &e))?;
        let mut out = std::io::BufWriter::new(file);
        fill(&mut Cancellable {
            inner: &mut out,
            cancel: &cancel,
        })
        .and_then(|()| out.flush())
        .map_err(|e| FwsvmError::io(path, &e))?;
        return Ok(());
    }
    crate::model_file::atomic::write_with(Path::new(path), |w| {
        fill(&mut Cancellable {
            inner: w,
            cancel: &cancel,
        })
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::cli::Console;

    struct Silent;

    impl Console for Silent {
        fn out(&mut self, _text: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn err(&mut self, _text: &str) {}
    }

    /// Ctrl-C while an output is written: the write stops, the existing file stays as it was,
    /// no temporary is left, and the command's status is 130.
    #[test]
    fn an_interrupted_write_keeps_the_existing_output() {
        let (dir, path) =
            crate::model_file::atomic::existing_file("fwsvm-cli-cancel", "out.txt", "keep me\n");
        let cancel = Arc::new(AtomicBool::new(false));
        let mut console = Silent;
        let mut context = Context {
            prog: "fwsvm-test",
            console: &mut console,
            cancel: cancel.clone(),
        };
        let err = write_output(&mut context, path.to_str().unwrap(), |w| {
            w.write_all(b"half of it")?;
            cancel.store(true, Ordering::SeqCst); // Ctrl-C arrives
            w.write_all(b" and the rest")
        })
        .unwrap_err();
        assert!(
            matches!(&err, CliError::Fwsvm(FwsvmError::Interrupted)),
            "{err:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
