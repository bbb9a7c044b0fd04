//! The small binary records of the openings checkpoint. This is the only
//! module that uses bincode (pinned to 2.0.x: upstream is unmaintained,
//! RUSTSEC-2025-0141); everything else sees plain structs.
//!
//! # Checkpoint file
//!
//! An append-only sequence of frames `len:u32 LE | crc32:u32 LE | payload`,
//! the payload being one bincode-encoded record. The first frame is a
//! [`CheckpointHeader`]; every later one a [`ResultRecord`]. The file is
//! read as a stream, one frame at a time, never whole. A frame whose length
//! runs past the end of the file, is 0 (eight zero bytes would otherwise
//! pass: the CRC of nothing is 0) or passes [`MAX_PAYLOAD`], whose CRC does
//! not match, or that does not decode to a record ends the readable part:
//! that frame and everything after it (a torn last frame, or corruption
//! followed by more data) are reported, with the offset where they start,
//! and cut off, never read further nor trusted; the records before it are
//! kept.
//!
//! A failed append (a full disk) cuts the file back to its last whole frame
//! and closes the checkpoint: every later append fails with the same error,
//! so no frame is ever written after a torn one.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bincode::{Decode, Encode};

/// The magic of the checkpoints this version writes.
pub const MAGIC: &str = "ADJI-OPENINGS-3";

/// The magic of version 2, which had no rule set: its checkpoints are the
/// default reading's, and are still resumed.
const MAGIC_V2: &str = "ADJI-OPENINGS-2";

/// Identifies a checkpoint and the settings whose results it holds.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct CheckpointHeader {
    /// Always [`MAGIC`] (version 1 had no estimates, version 2 no rule set).
    pub magic: String,
    /// Game name.
    pub game: String,
    /// Root position.
    pub root: String,
    /// Plies enumerated.
    pub plies: u32,
    /// Loop rule name.
    pub rule: String,
    /// The analysis budget, as text (e.g. `exact`, `time 60s`).
    pub budget: String,
    /// The rule set's name (`default`, `valdez`, …).
    pub rules: String,
}

/// A version 2 header: a [`CheckpointHeader`] without the rule set.
#[derive(Decode)]
struct HeaderV2 {
    magic: String,
    game: String,
    root: String,
    plies: u32,
    rule: String,
    budget: String,
}

impl HeaderV2 {
    /// The header it stands for: the default reading's.
    fn upgrade(self) -> CheckpointHeader {
        CheckpointHeader {
            magic: if self.magic == MAGIC_V2 {
                MAGIC.into()
            } else {
                self.magic
            },
            game: self.game,
            root: self.root,
            plies: self.plies,
            rule: self.rule,
            budget: self.budget,
            rules: "default".into(),
        }
    }
}

/// One analysed position.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct ResultRecord {
    /// Packed position, low 64 bits.
    pub key_lo: u64,
    /// Packed position, high 64 bits.
    pub key_hi: u64,
    /// Value bounds.
    pub value: (i32, i32),
    /// `lo` bounds.
    pub lo: (i32, i32),
    /// `hi` bounds.
    pub hi: (i32, i32),
    /// Best move (relative pit), 255 for pass, [`NO_BEST`] for none.
    pub best: u8,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds.
    pub ms: u64,
    /// The engine's estimate (1/100 seeds) and its depth, for an unresolved value.
    pub estimate: Option<(i32, u32)>,
}

/// [`ResultRecord::best`] when there is no best move. Part of the file
/// format, so fixed here; it is the search's own marker.
pub const NO_BEST: u8 = 254;
const _: () = assert!(NO_BEST == crate::tt::NO_MOVE);

/// A checkpoint problem.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// I/O.
    #[error("{path}: {1}", path = .0.display())]
    Io(PathBuf, #[source] io::Error),
    /// The file is not a checkpoint or was made with other settings.
    #[error("{path}: {1}", path = .0.display())]
    Mismatch(PathBuf, String),
    /// A frame with a good checksum does not decode (e.g. it claims a
    /// string longer than itself).
    #[error("{path}: frame {frame} ({what}) does not decode: {msg}; not an openings checkpoint, or a damaged one", path = .path.display())]
    Frame {
        /// The checkpoint file.
        path: PathBuf,
        /// The frame's number, from 0 (the header).
        frame: usize,
        /// What the frame should hold.
        what: &'static str,
        /// The decoder's message.
        msg: String,
    },
    /// A record decodes but holds what no run with these settings writes
    /// (checked by its reader against the run's positions).
    #[error("{path}: frame {frame} (a record) is not a result of this run: {what}; a damaged or altered checkpoint (start over with --force instead of --resume)", path = .path.display())]
    Record {
        /// The checkpoint file.
        path: PathBuf,
        /// The frame's number, from 0 (the header).
        frame: usize,
        /// What is wrong with it.
        what: String,
    },
}

/// The most bytes one frame's payload may claim when decoded: a record
/// takes under 100 bytes, a header a few hundred. A length prefix beyond
/// it (or beyond the frame) is refused before anything is allocated.
pub const MAX_PAYLOAD: usize = 1 << 16;

/// The encoding of every frame's payload, bounded by [`MAX_PAYLOAD`].
fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_PAYLOAD>()
}

/// A decoding error in words.
fn decode_message(e: &bincode::error::DecodeError) -> String {
    use bincode::error::DecodeError as E;
    match e {
        E::LimitExceeded => {
            format!("a length in it claims more than the {MAX_PAYLOAD} bytes a frame may hold")
        }
        E::UnexpectedEnd { .. } => "a length in it claims more bytes than it holds".into(),
        e => e.to_string(),
    }
}

/// Decodes one payload, refusing lengths that claim more than it holds.
fn decode<T: Decode<()>>(payload: &[u8]) -> Result<T, bincode::error::DecodeError> {
    if payload.len() > MAX_PAYLOAD {
        return Err(bincode::error::DecodeError::LimitExceeded);
    }
    bincode::decode_from_slice(payload, config()).map(|(v, _)| v)
}

pub(crate) fn frame<T: Encode>(v: &T) -> Vec<u8> {
    let payload = bincode::encode_to_vec(v, config()).expect("encoding a small record cannot fail");
    let mut out = Vec::with_capacity(payload.len() + 8);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Reads the next frame's payload from `r`: `None` at the end of the
/// file and at a frame that cannot be whole and good (torn, empty, longer
/// than [`MAX_PAYLOAD`] or with a bad CRC). Reads at most one frame.
fn read_frame(r: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut head = [0u8; 8];
    if read_full(r, &mut head)? < head.len() {
        return Ok(None);
    }
    let len = u32::from_le_bytes(head[..4].try_into().unwrap()) as usize;
    let crc = u32::from_le_bytes(head[4..].try_into().unwrap());
    if len == 0 || len > MAX_PAYLOAD {
        return Ok(None);
    }
    let mut payload = vec![0u8; len];
    if read_full(r, &mut payload)? < len || crc32fast::hash(&payload) != crc {
        return Ok(None);
    }
    Ok(Some(payload))
}

/// Fills `buf` from `r` as far as the file goes; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Where the frames of a checkpoint go: its file (or, in tests, a writer
/// that fails).
pub(crate) trait Sink: Write + Send {
    /// Makes the frames written so far durable.
    fn sync(&mut self) -> io::Result<()>;
    /// Cuts the sink back to `len` bytes.
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

impl Sink for File {
    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)
    }
}

struct Inner {
    sink: Box<dyn Sink>,
    /// Bytes of whole frames written.
    len: u64,
    /// The first failed append's error, once one failed.
    failed: Option<(io::ErrorKind, String)>,
}

/// An open checkpoint, appending records durably.
pub struct Checkpoint {
    path: PathBuf,
    inner: Mutex<Inner>,
}

/// What opening a checkpoint found.
pub struct Loaded {
    /// The open checkpoint.
    pub checkpoint: Checkpoint,
    /// Records already there.
    pub records: Vec<ResultRecord>,
    /// Bytes of a bad tail that were dropped (0 when clean).
    pub dropped_bytes: u64,
    /// Where that tail began (the offset of its first bad frame), if any.
    pub dropped_from: Option<u64>,
}

impl Checkpoint {
    /// A checkpoint appending to `sink`, which holds `len` bytes of whole frames.
    pub(crate) fn with_sink(path: &Path, sink: Box<dyn Sink>, len: u64) -> Checkpoint {
        let failed = None;
        Checkpoint {
            path: path.to_path_buf(),
            inner: Mutex::new(Inner { sink, len, failed }),
        }
    }

    /// Creates a new checkpoint with `header`, atomically replacing whatever
    /// was at `path` (a file, a link, a FIFO: never written through).
    ///
    /// # Errors
    /// I/O errors.
    pub fn create(path: &Path, header: &CheckpointHeader) -> Result<Checkpoint, CheckpointError> {
        let io = |e| CheckpointError::Io(path.to_path_buf(), e);
        let head = frame(header);
        crate::fsutil::write_atomic(path, &head).map_err(io)?;
        let f = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok(Checkpoint::with_sink(path, Box::new(f), head.len() as u64))
    }

    /// Opens an existing checkpoint for resuming. A bad tail (a half-written
    /// or corrupt frame and all after it) is cut off.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] when the file is not a checkpoint or its
    /// header differs from `header`; I/O errors, also when `path` is not a
    /// regular file.
    pub fn resume(path: &Path, header: &CheckpointHeader) -> Result<Loaded, CheckpointError> {
        let io = |e| CheckpointError::Io(path.to_path_buf(), e);
        let f = crate::fsutil::open_regular(path).map_err(io)?;
        let size = f.metadata().map_err(io)?.len();
        let mut r = BufReader::new(f);
        let first = read_frame(&mut r).map_err(io)?;
        check_header(path, first.as_deref(), header)?;
        let mut cut = first.map_or(0, |p| 8 + p.len() as u64);
        let mut records = Vec::new();
        while let Some(p) = read_frame(&mut r).map_err(io)? {
            let Ok(rec) = decode::<ResultRecord>(&p) else {
                break;
            };
            records.push(rec);
            cut += 8 + p.len() as u64;
        }
        drop(r);
        let f = OpenOptions::new().write(true).open(path).map_err(io)?;
        f.set_len(cut).map_err(io)?;
        f.sync_all().map_err(io)?;
        let f = OpenOptions::new().append(true).open(path).map_err(io)?;
        let dropped_bytes = size.saturating_sub(cut);
        Ok(Loaded {
            checkpoint: Checkpoint::with_sink(path, Box::new(f), cut),
            records,
            dropped_bytes,
            dropped_from: (dropped_bytes > 0).then_some(cut),
        })
    }

    /// The checkpoint's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record and makes it durable before returning. After a
    /// failure the file is cut back to its last whole frame and every later
    /// append fails with the same error.
    ///
    /// # Errors
    /// I/O errors.
    pub fn append(&self, r: &ResultRecord) -> Result<(), CheckpointError> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let inner = &mut *g;
        if let Some((kind, msg)) = &inner.failed {
            let e = io::Error::new(*kind, format!("{msg} (an earlier append failed)"));
            return Err(CheckpointError::Io(self.path.clone(), e));
        }
        let bytes = frame(r);
        match inner.sink.write_all(&bytes).and_then(|_| inner.sink.sync()) {
            Ok(()) => {
                inner.len += bytes.len() as u64;
                Ok(())
            }
            Err(e) => {
                inner.failed = Some((e.kind(), e.to_string()));
                let _ = inner.sink.truncate(inner.len);
                Err(CheckpointError::Io(self.path.clone(), e))
            }
        }
    }
}

/// Checks that the first frame is a checkpoint header equal to `want`.
fn check_header(
    path: &Path,
    first: Option<&[u8]>,
    want: &CheckpointHeader,
) -> Result<(), CheckpointError> {
    let mismatch = |m: String| CheckpointError::Mismatch(path.to_path_buf(), m);
    let first =
        first.ok_or_else(|| mismatch("not an openings checkpoint (no valid header)".into()))?;
    let found: CheckpointHeader = decode(first)
        .or_else(|e| {
            decode::<HeaderV2>(first)
                .map(HeaderV2::upgrade)
                .map_err(|_| e)
        })
        .map_err(|e| CheckpointError::Frame {
            path: path.to_path_buf(),
            frame: 0,
            what: "the header",
            msg: decode_message(&e),
        })?;
    if found.magic != want.magic {
        return Err(mismatch("not an openings checkpoint (bad magic)".into()));
    }
    if found.game == want.game && found.rules != want.rules {
        return Err(mismatch(format!(
            "checkpoint was made under {} rule set '{}', this run uses '{}'; \
             use another --out, drop --resume, or resume with --rules {}",
            found.game, found.rules, want.rules, found.rules
        )));
    }
    if found != *want {
        return Err(mismatch(format!(
            "checkpoint was made with other settings (game {}, rules {}, root {}, plies {}, loop {}, budget {}); \
             use another --out or drop --resume",
            found.game, found.rules, found.root, found.plies, found.rule, found.budget
        )));
    }
    Ok(())
}

/// A sink for tests that fills up like a disk.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Accepts `room` bytes, then fails as a full disk does.
    pub(crate) struct Full {
        pub(crate) data: std::sync::Arc<Mutex<Vec<u8>>>,
        pub(crate) room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut d = self.data.lock().unwrap();
            let n = buf.len().min(self.room.saturating_sub(d.len()));
            if n == 0 && !buf.is_empty() {
                return Err(io::Error::other("disk full (test)"));
            }
            d.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Sink for Full {
        fn sync(&mut self) -> io::Result<()> {
            Ok(())
        }

        fn truncate(&mut self, len: u64) -> io::Result<()> {
            self.data.lock().unwrap().truncate(len as usize);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::Full;
    use super::*;

    fn record(k: u64) -> ResultRecord {
        ResultRecord {
            key_lo: k,
            key_hi: 0,
            value: (1, 2),
            lo: (1, 1),
            hi: (2, 2),
            best: NO_BEST,
            nodes: k,
            ms: 0,
            estimate: k.is_multiple_of(2).then_some((150, 7)),
        }
    }

    /// A file of one frame with a good checksum holding `payload`.
    fn one_frame(payload: &[u8]) -> tempfile::NamedTempFile {
        let mut b = (payload.len() as u32).to_le_bytes().to_vec();
        b.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        b.extend_from_slice(payload);
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), b).unwrap();
        f
    }

    fn header(rules: &str) -> CheckpointHeader {
        CheckpointHeader {
            magic: MAGIC.into(),
            game: "adjiboto".into(),
            root: "start".into(),
            plies: 1,
            rule: "start".into(),
            budget: "exact".into(),
            rules: rules.into(),
        }
    }

    #[test]
    fn another_rule_set_is_refused_naming_both_and_a_version_2_file_is_the_defaults() {
        let f = one_frame(&frame(&header("valdez"))[8..]);
        let e = Checkpoint::resume(f.path(), &header("default"))
            .err()
            .unwrap();
        let m = e.to_string();
        assert!(m.contains("'valdez'") && m.contains("'default'"), "{m}");
        assert!(Checkpoint::resume(f.path(), &header("valdez")).is_ok());
        // Version 2: the same fields without the rule set.
        #[derive(Encode)]
        struct V2(String, String, String, u32, String, String);
        let h = header("default");
        let v2 = V2(MAGIC_V2.into(), h.game, h.root, h.plies, h.rule, h.budget);
        let f = one_frame(&frame(&v2)[8..]);
        assert!(Checkpoint::resume(f.path(), &header("default")).is_ok());
        let e = Checkpoint::resume(f.path(), &header("valdez"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("'default'"), "{e}");
    }

    #[test]
    fn a_header_claiming_a_huge_string_is_a_frame_error_not_a_panic() {
        let want = header("default");
        for len in [u64::MAX, 1 << 40, MAX_PAYLOAD as u64 + 1] {
            let mut payload = vec![253u8]; // bincode's varint tag of a u64
            payload.extend_from_slice(&len.to_le_bytes());
            let f = one_frame(&payload);
            let e = Checkpoint::resume(f.path(), &want).err().unwrap();
            assert!(
                matches!(&e, CheckpointError::Frame { frame: 0, path, .. } if path == f.path()),
                "{e}"
            );
        }
        // The same header, well formed, still opens.
        let f = one_frame(&frame(&want)[8..]);
        assert!(Checkpoint::resume(f.path(), &want).is_ok());
    }

    #[test]
    fn a_failed_append_cuts_back_to_whole_frames_and_closes_the_checkpoint() {
        let data = std::sync::Arc::new(Mutex::new(Vec::new()));
        let one = frame(&record(1)).len();
        let full = Full {
            data: data.clone(),
            room: one + one / 2,
        };
        let ck = Checkpoint::with_sink(Path::new("ck.bin"), Box::new(full), 0);
        ck.append(&record(1)).unwrap();
        let e = ck.append(&record(2)).unwrap_err();
        assert!(matches!(&e, CheckpointError::Io(p, _) if p == Path::new("ck.bin")));
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(data.lock().unwrap().len(), one, "torn frame cut off");
        // Room again, but the checkpoint stays closed: no frame after a torn one.
        data.lock().unwrap().clear();
        let e = ck.append(&record(3)).unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        assert!(data.lock().unwrap().is_empty());
    }
}
