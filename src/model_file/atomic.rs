//! Writing a file so that nothing is lost: into a temporary file in the same folder, flushed
//! and synced, then renamed over the target. An error (or a crash) leaves any existing file as
//! it was, and no half-written file behind.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{FwsvmError, Result};

/// Writes `path` through `fill`, atomically where the target is (or will be) a regular file.
/// A symbolic link is written through (its target is replaced, as `open` would write it);
/// a device or pipe (`/dev/stdout`) is written directly. An existing file's permissions are
/// kept.
///
/// # Errors
/// [`FwsvmError::Io`] naming `path` for any failure; `fill`'s own errors are passed on.
pub(crate) fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| FwsvmError::io(&name, &e);
    let target: PathBuf = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let existing = std::fs::metadata(&target).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut out = std::io::BufWriter::new(
            std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(io)?,
        );
        fill(&mut out).map_err(io)?;
        return out.flush().map_err(io);
    }
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let (mut temp, temp_path) = create_temporary(&folder, &file_name).map_err(io)?;
    let result = (|| {
        {
            let mut out = std::io::BufWriter::new(&mut temp);
            fill(&mut out)?;
            out.flush()?;
        }
        if let Some(meta) = &existing {
            temp.set_permissions(meta.permissions())?;
        }
        temp.sync_all()?;
        drop(temp);
        std::fs::rename(&temp_path, &target)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp_path);
        return Err(io(e));
    }
    Ok(())
}

/// A new file `.<name>.<pid>.<n>.tmp` in `folder`, created exclusively.
fn create_temporary(folder: &Path, name: &str) -> std::io::Result<(std::fs::File, PathBuf)> {
    let pid = std::process::id();
    let mut attempt = 0u32;
    loop {
        let path = folder.join(format!(".{name}.{pid}.{attempt}.tmp"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 1000 => {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// A fresh directory `<temp>/<tag>-<pid>` holding `name` with `content`, for tests that
/// overwrite a file; returns the directory and the file.
#[cfg(test)]
pub(crate) fn existing_file(
    tag: &str,
    name: &str,
    content: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    (dir, path)
}

#[cfg(test)]
mod tests {
    use super::{existing_file, write_with};

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let (dir, path) = existing_file("fwsvm-atomic", "model.txt", "old");
        let err = write_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        write_with(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
