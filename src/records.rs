//! The small binary records of the openings checkpoint. This is the only
//! module that uses bincode (pinned to 2.0.x: upstream is unmaintained,
//! RUSTSEC-2025-0141); everything else sees plain structs.
//!
//! # Checkpoint file
//!
//! An append-only sequence of frames `len:u32 LE | crc32:u32 LE | payload`,
//! the payload being one bincode-encoded record. The first frame is a
//! [`CheckpointHeader`]; every later one a [`ResultRecord`]. A frame whose
//! length runs past the end of the file or whose CRC does not match ends the
//! readable part: that tail is reported and dropped, never trusted.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use bincode::{Decode, Encode};

/// Identifies a checkpoint and the settings whose results it holds.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct CheckpointHeader {
    /// Always `ADJI-OPENINGS-1`.
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
    /// Best move (relative pit), 255 for pass, 254 for none.
    pub best: u8,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds.
    pub ms: u64,
}

/// A checkpoint problem.
#[derive(Debug)]
pub enum CheckpointError {
    /// I/O.
    Io(PathBuf, std::io::Error),
    /// The file is not a checkpoint or was made with other settings.
    Mismatch(PathBuf, String),
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            CheckpointError::Mismatch(p, m) => write!(f, "{}: {m}", p.display()),
        }
    }
}

impl std::error::Error for CheckpointError {}

fn frame<T: Encode>(v: &T) -> Vec<u8> {
    let payload = bincode::encode_to_vec(v, bincode::config::standard())
        .expect("encoding to a Vec cannot fail");
    let mut out = Vec::with_capacity(payload.len() + 8);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Reads frames; returns the payloads and the offset just after the last good one.
fn read_frames(bytes: &[u8]) -> (Vec<&[u8]>, usize) {
    let mut out = Vec::new();
    let mut off = 0;
    while off + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap()) as usize;
        let crc = u32::from_le_bytes(bytes[off + 4..off + 8].try_into().unwrap());
        let Some(payload) = bytes.get(off + 8..off + 8 + len) else {
            break;
        };
        if crc32fast::hash(payload) != crc {
            break;
        }
        out.push(payload);
        off += 8 + len;
    }
    (out, off)
}

/// An open checkpoint, appending records durably.
pub struct Checkpoint {
    path: PathBuf,
    file: std::sync::Mutex<File>,
}

/// What opening a checkpoint found.
pub struct Loaded {
    /// The open checkpoint.
    pub checkpoint: Checkpoint,
    /// Records already there.
    pub records: Vec<ResultRecord>,
    /// Bytes of a bad tail that were dropped (0 when clean).
    pub dropped_bytes: u64,
}

impl Checkpoint {
    /// Creates a new checkpoint (replacing any file there) with `header`.
    ///
    /// # Errors
    /// I/O errors.
    pub fn create(path: &Path, header: &CheckpointHeader) -> Result<Checkpoint, CheckpointError> {
        let io = |e| CheckpointError::Io(path.to_path_buf(), e);
        let mut f = File::create(path).map_err(io)?;
        f.write_all(&frame(header)).map_err(io)?;
        f.sync_all().map_err(io)?;
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file: std::sync::Mutex::new(f),
        })
    }

    /// Opens an existing checkpoint for resuming. A bad tail (a half-written
    /// or corrupt frame and all after it) is cut off.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] when the file is not a checkpoint or its
    /// header differs from `header`; I/O errors.
    pub fn resume(path: &Path, header: &CheckpointHeader) -> Result<Loaded, CheckpointError> {
        let io = |e| CheckpointError::Io(path.to_path_buf(), e);
        let bytes = std::fs::read(path).map_err(io)?;
        let (frames, good) = read_frames(&bytes);
        let mismatch = |m: String| CheckpointError::Mismatch(path.to_path_buf(), m);
        let first = frames
            .first()
            .ok_or_else(|| mismatch("not an openings checkpoint (no valid header)".into()))?;
        let (found, _): (CheckpointHeader, usize) =
            bincode::decode_from_slice(first, bincode::config::standard())
                .map_err(|_| mismatch("not an openings checkpoint (unreadable header)".into()))?;
        if found.magic != header.magic {
            return Err(mismatch("not an openings checkpoint (bad magic)".into()));
        }
        if found != *header {
            return Err(mismatch(format!(
                "checkpoint was made with other settings (game {}, root {}, plies {}, loop {}, budget {}); \
                 use another --out or drop --resume",
                found.game, found.root, found.plies, found.rule, found.budget
            )));
        }
        let mut records = Vec::new();
        let mut cut = good;
        let mut off = 8 + first.len();
        for p in &frames[1..] {
            match bincode::decode_from_slice::<ResultRecord, _>(p, bincode::config::standard()) {
                Ok((r, _)) => records.push(r),
                Err(_) => {
                    cut = off;
                    break;
                }
            }
            off += 8 + p.len();
        }
        let dropped_bytes = (bytes.len() - cut) as u64;
        let f = OpenOptions::new().write(true).open(path).map_err(io)?;
        f.set_len(cut as u64).map_err(io)?;
        f.sync_all().map_err(io)?;
        let f = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok(Loaded {
            checkpoint: Checkpoint {
                path: path.to_path_buf(),
                file: std::sync::Mutex::new(f),
            },
            records,
            dropped_bytes,
        })
    }

    /// Appends one record and fsyncs it before returning.
    ///
    /// # Errors
    /// I/O errors.
    pub fn append(&self, r: &ResultRecord) -> Result<(), CheckpointError> {
        let io = |e| CheckpointError::Io(self.path.clone(), e);
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(&frame(r)).map_err(io)?;
        f.sync_data().map_err(io)
    }
}
