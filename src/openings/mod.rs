//! Batch opening analysis: every line of `K` plies from a root, each unique
//! resulting position analysed once (in parallel), results checkpointed
//! durably as they come, backed up the tree by the same rules as the search,
//! and written as CSV, JSON, Markdown and SVG.
//!
//! This module owns the types shared by its parts ([`LeafResult`],
//! [`OpeningsError`]); the parts are:
//! - `tree`: enumeration of the lines into a [`Tree`], bounded by a node cap;
//! - `run`: the parallel analysis with one state per worker, checkpointing
//!   and resume ([`run`], [`Config`], [`Budget`], [`Report`]);
//! - `checkpoint`: the conversion between results and checkpoint records;
//! - `backup`: backing leaf results up the tree ([`backup`]);
//! - `report`: the four output files.
//!
//! # Backing up
//!
//! A leaf gets the bounds of its analysis: value, `lo` and `hi`. An inner
//! node's moves are worth `captured − value(child)` (a capture) or
//! `clamp(w, −hi(child), −lo(child))` (a quiet move), exactly as in
//! [`crate::search`], so every prefix gets the value a direct solve of its
//! position would give (tested). Bounds stay bounds all the way up.
//!
//! # Checkpoint and resume
//!
//! `checkpoint.bin` in the output directory ([`crate::records`]) gets one
//! fsynced record per finished position. `--resume` reads it as a stream,
//! drops a half-written or corrupt tail with a warning, refuses a record
//! that no analysis of the run's positions writes, and analyses only what
//! is missing. Outputs depend only on the records, so a resumed run writes the
//! same files as an uninterrupted one (with timings switched off, since
//! wall-clock times differ between runs). A record that cannot be written
//! (a full disk) stops the run with that I/O error; nothing is written.

use std::path::PathBuf;

use crate::game::Move;
use crate::records::CheckpointError;
use crate::value::Range;

mod backup;
mod checkpoint;
mod report;
mod run;
mod tree;

pub use backup::backup;
pub use backup::line_score;
pub use run::{run, run_distributed, Budget, Config, Report, WorkerError};
pub use tree::{bytes_per_node, enumerate, max_nodes_for, Edge, Node, Tree};

/// The report files a run writes into its output directory.
pub const REPORT_FILES: [&str; 4] = ["lines.csv", "tree.json", "tree.svg", "summary.md"];

/// The files of a run already in `out`: its checkpoint (or the checkpoints
/// of a distributed run's ranks) and its reports. None when `out` is missing.
///
/// # Errors
/// An I/O error listing `out`.
pub fn run_files(out: &std::path::Path) -> Result<Vec<PathBuf>, OpeningsError> {
    if !out.is_dir() {
        return Ok(Vec::new());
    }
    let mut found = checkpoint::rank_files(out)?;
    let named = std::iter::once(checkpoint::FILE).chain(REPORT_FILES);
    found.extend(
        named
            .map(|f| out.join(f))
            .filter(|p| p.symlink_metadata().is_ok()),
    );
    Ok(found)
}

/// The engine's estimate of a position the budget left unresolved: never a
/// value, and always inside the position's proven bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafEstimate {
    /// The estimate, in 1/[`crate::engine::SCALE`] seeds for the mover.
    pub centi: i32,
    /// Depth of the engine's deepest completed iteration.
    pub depth: u32,
}

/// The analysis of one position, as the openings code needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafResult {
    /// Value bounds.
    pub value: Range,
    /// `lo` bounds.
    pub lo: Range,
    /// `hi` bounds.
    pub hi: Range,
    /// Best move, if the value is exact.
    pub best: Option<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds spent.
    pub ms: u64,
    /// With `--estimate-time`, the engine's estimate where the value is not exact.
    pub estimate: Option<LeafEstimate>,
}

impl LeafResult {
    /// The parts of a search's analysis the openings need; the best move is
    /// kept only when the value is exact.
    pub fn from_analysis(a: &crate::search::Analysis, ms: u64) -> Self {
        let best = if a.value.exact() {
            a.moves.first().map(|m| m.mv)
        } else {
            None
        };
        LeafResult {
            value: a.value,
            lo: a.lo,
            hi: a.hi,
            best,
            nodes: a.stats.nodes,
            ms,
            estimate: None,
        }
    }

    /// Adds the estimate engine's answer to an unresolved result: the value
    /// bounds become the intersection of both searches' proven bounds, and
    /// the estimate is kept (inside them) unless that makes the value exact.
    pub fn with_estimate(mut self, e: &crate::engine::Estimate) -> Self {
        self.value = self.value.meet(e.proven);
        self.nodes += e.nodes;
        if !self.value.exact() {
            let s = crate::engine::SCALE;
            let centi = (e.estimate * s as f64).round() as i32;
            self.estimate = Some(LeafEstimate {
                centi: centi.clamp(self.value.lower * s, self.value.upper * s),
                depth: e.depth,
            });
        }
        self
    }
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// The checkpoint is not one, or was made with other settings.
    #[error(transparent)]
    Checkpoint(CheckpointError),
    /// Reading or writing a file (the checkpoint or an output) failed.
    #[error("{path}: {1}", path = .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    /// Stopped by the test hook after this many new results.
    #[error("stopped after {0} new results (resume with --resume)")]
    Interrupted(usize),
    /// The tree passed its node cap while being enumerated.
    #[error(
        "the opening tree passes {nodes} nodes (about {} MiB); \
         use fewer plies or allow more memory",
        bytes >> 20
    )]
    TooLarge {
        /// Nodes enumerated when the cap was passed.
        nodes: usize,
        /// Estimated memory of that many nodes over a run, in bytes.
        bytes: u64,
    },
    /// A worker's state (e.g. its hash table) could not be made.
    #[error("cannot set up a worker: {0}")]
    Worker(#[source] WorkerError),
}

impl From<CheckpointError> for OpeningsError {
    /// An I/O failure on the checkpoint is reported as the I/O error it is.
    fn from(e: CheckpointError) -> Self {
        match e {
            CheckpointError::Io(path, e) => OpeningsError::Io(path, e),
            other => OpeningsError::Checkpoint(other),
        }
    }
}
