//! Files the tool writes and reads: one atomic-write helper (temporary file
//! in the target directory, fsync, rename), cleanup of our own stale
//! temporary files after a kill, opening of regular files only (a FIFO
//! or device named like a table must not hang or confuse a reader), the
//! names in a directory (`list_dir`), and the directories a command
//! needs ([`require_dir`], [`create_dir_all`]: a file where a directory
//! is expected is named as such).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Prefix of every temporary file this tool creates.
pub const TMP_PREFIX: &str = ".adji-";
/// Suffix of every temporary file this tool creates.
pub const TMP_SUFFIX: &str = ".tmp";

/// Writes `path` atomically: `fill` writes the contents into a temporary file
/// in the same directory (`.adji-NAME.XXXXXX.tmp`, NAME the target's name,
/// so that a cleaner can tell whose it is), which is then flushed, fsynced and renamed over
/// `path`. On any error the temporary file is removed and `path` is untouched.
/// The directory must exist (it is not created: a mistyped path is an
/// error, not a new folder), and `path`, if it exists, must be a regular
/// file: a device, FIFO or directory there is refused, never replaced.
///
/// # Errors
/// Any I/O error from creating, writing, syncing or renaming; `NotFound`
/// for a missing directory; `InvalidInput` for a target that is not a
/// regular file.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not a regular file ({}); not replaced", kind_name(&meta)),
            ));
        }
    }
    // The temporary file names its target, so that a cleaner can tell
    // whose it is (`.adji-NAME.XXXXXX.tmp`).
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!("{TMP_PREFIX}{}.", name.unwrap_or_default()))
        .suffix(TMP_SUFFIX)
        .tempfile_in(dir)?;
    // A temporary file is private (0600); the result is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        fill(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // Make the rename itself durable.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically (see [`write_atomic_with`]).
///
/// # Errors
/// Any I/O error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Removes the temporary files of our own naming (`.adji-*.tmp`) that a
/// killed run left in `dir`. Returns how many were removed. A missing
/// directory removes nothing.
///
/// # Errors
/// An I/O error listing the directory or removing a file.
pub fn remove_stale_temps(dir: &Path) -> io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(TMP_PREFIX)
            && name.ends_with(TMP_SUFFIX)
            && entry.file_type()?.is_file()
        {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The names in `dir` (none when it does not exist).
///
/// # Errors
/// The listing's own error.
pub(crate) fn list_dir(dir: &Path) -> io::Result<Vec<String>> {
    match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// Opens `path` for reading only if it is a regular file (after following
/// links). A directory, FIFO, socket or device gets an
/// [`io::ErrorKind::InvalidInput`] error saying what it is, before any open
/// that could block.
///
/// # Errors
/// `NotFound` when missing, `InvalidInput` when not a regular file, or the
/// open's own error.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_name(&meta)),
        ));
    }
    File::open(path)
}

/// Reads `path` whole as text, only if it is a regular file (see
/// [`open_regular`]: a FIFO or device is refused before it is opened) of
/// at most `max_bytes` (a larger file is refused before it is read).
///
/// # Errors
/// As [`open_regular`], or the read's own error (also for text that is not UTF-8).
pub fn read_regular_to_string(path: &Path, max_bytes: u64) -> io::Result<String> {
    let f = open_regular(path)?;
    let len = f.metadata()?.len();
    if len > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{len} bytes, more than the {max_bytes} this file may have"),
        ));
    }
    let mut text = String::new();
    // The bound holds even if the file grows while it is read.
    io::Read::read_to_string(&mut io::Read::take(f, max_bytes), &mut text)?;
    Ok(text)
}

/// The error of `path`, which exists but is not a directory:
/// "PATH is a file, not a directory" (or a FIFO, a device, ...).
pub fn not_a_directory(path: &Path, meta: &std::fs::Metadata) -> io::Error {
    let what = match kind_name(meta) {
        "not a regular file" => "a file",
        k => k,
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {what}, not a directory", path.display()),
    )
}

/// Checks that `path` is an existing directory (after following links).
///
/// # Errors
/// `NotFound` ("PATH: no such directory") when it is missing;
/// [`not_a_directory`] when it is a file or anything else.
pub fn require_dir(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(not_a_directory(path, &m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{}: no such directory", path.display()),
        )),
        Err(e) => Err(e),
    }
}

/// Checks that `path` is a directory or does not exist yet (a directory a
/// command will make).
///
/// # Errors
/// [`not_a_directory`] when something else stands there.
pub fn dir_or_absent(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => Err(not_a_directory(path, &m)),
        _ => Ok(()),
    }
}

/// Creates the directory `path` and its parents, as
/// [`std::fs::create_dir_all`], but names a file standing where a
/// directory is needed (`path` or one of its parents) instead of
/// "File exists" or "Not a directory".
///
/// # Errors
/// [`not_a_directory`] for such a file; else the creation's own error.
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    match std::fs::create_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) => {
            // The deepest existing ancestor (or the path itself) that is
            // not a directory is the culprit.
            for p in path.ancestors().filter(|p| !p.as_os_str().is_empty()) {
                if let Ok(m) = std::fs::metadata(p) {
                    return Err(if m.is_dir() {
                        e
                    } else {
                        not_a_directory(p, &m)
                    });
                }
            }
            Err(e)
        }
    }
}

fn kind_name(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Bytes free for an unprivileged writer on the file system of `dir`
/// (`statvfs`'s available blocks).
///
/// # Errors
/// The `statvfs` error; `Unsupported` off Linux.
pub fn free_bytes(dir: &Path) -> io::Result<u64> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        // SAFETY: statvfs is plain data; zeroed is a valid value, and the
        // path is a NUL-terminated string.
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointers to the path and to `s`.
        if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(s.f_bavail as u64 * s.f_frsize as u64)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "free disk space is only known on Linux",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644, "written files are readable by all");
        }
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn failed_fill_leaves_target_untouched() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.txt");
        write_atomic(&p, b"keep").unwrap();
        let e = write_atomic_with(&p, |_| Err(io::Error::other("boom")));
        assert!(e.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"keep");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn stale_temps_are_removed_and_others_kept() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(".adji-abc.tmp"), b"x").unwrap();
        std::fs::write(d.path().join("keep.tmp"), b"x").unwrap();
        std::fs::write(d.path().join(".adji-keep"), b"x").unwrap();
        assert_eq!(remove_stale_temps(d.path()).unwrap(), 1);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
        assert_eq!(remove_stale_temps(&d.path().join("none")).unwrap(), 0);
    }

    /// Issue 37, item 8: a file where a directory is expected is named as
    /// such, whether the directory is to exist or to be made.
    #[test]
    fn a_file_where_a_directory_is_expected_is_named() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let want = format!("{} is a file, not a directory", f.display());
        assert_eq!(require_dir(&f).unwrap_err().to_string(), want);
        assert_eq!(create_dir_all(&f).unwrap_err().to_string(), want);
        assert_eq!(
            create_dir_all(&f.join("sub")).unwrap_err().to_string(),
            want
        );
        assert_eq!(dir_or_absent(&f).unwrap_err().to_string(), want);
        let missing = d.path().join("m");
        dir_or_absent(&missing).unwrap();
        assert!(require_dir(&missing)
            .unwrap_err()
            .to_string()
            .ends_with("m: no such directory"));
        create_dir_all(&missing.join("a/b")).unwrap();
        require_dir(&missing.join("a/b")).unwrap();
        create_dir_all(&missing).unwrap();
    }

    #[test]
    fn only_regular_files_open() {
        let d = tempfile::tempdir().unwrap();
        let e = open_regular(d.path()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("directory"));
        #[cfg(unix)]
        {
            let e = open_regular(Path::new("/dev/null")).unwrap_err();
            assert!(e.to_string().contains("device"), "{e}");
        }
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        assert!(open_regular(&f).is_ok());
        assert_eq!(
            open_regular(&d.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
