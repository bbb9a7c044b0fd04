//! The command line's one error type. Every failure prints one message on
//! standard error and exits with 1 (a command that reported its outcome
//! itself may exit with another status, as `certify check` does); a closed
//! standard output (the reader, e.g. `head`, went away) exits quietly with 0.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use adji::notation::NotationError;
use adji::openings::OpeningsError;
use adji::report::ProbeError;
use adji::search::SearchError;
use adji::tables::TableError;
use adji::tt::TtError;

use crate::util::fmt_bytes;

impl From<adji::oracle::OracleError> for CliError {
    fn from(e: adji::oracle::OracleError) -> Self {
        use adji::oracle::OracleError as E;
        match e {
            E::Search(e) => CliError::Search(e),
            E::Probe(e) => CliError::Probe(e),
            E::Damaged(e) => CliError::Tables(e),
            e => CliError::Input(e.to_string()),
        }
    }
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input or an impossible request; the message names the option or value.
    #[error("{0}")]
    Input(String),
    /// `--position` does not parse.
    #[error("--position: {0}")]
    Position(#[from] NotationError),
    /// The tables cannot answer `--position`.
    #[error("--position: {0}")]
    Probe(#[from] ProbeError),
    /// A table file is missing or bad.
    #[error(transparent)]
    Tables(#[from] TableError),
    /// A search cannot be set up with these tables.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The transposition table cannot be made.
    #[error("--hash: {0}")]
    Hash(#[from] TtError),
    /// An openings run failed.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// A file cannot be read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The plan needs more memory than `--memory` allows.
    #[error(
        "the plan needs {} ({plan}) but --memory allows {}{origin}; {hint}",
        fmt_bytes(*need),
        fmt_bytes(*allow)
    )]
    Memory {
        /// Bytes needed.
        need: u64,
        /// How they add up.
        plan: String,
        /// Bytes allowed.
        allow: u64,
        /// Where the budget came from, when not from `--memory`.
        origin: &'static str,
        /// What to change.
        hint: String,
    },
    /// Some items failed; each was reported where it occurred.
    #[error("{0}")]
    Failed(String),
    /// A report cannot be encoded.
    #[error("encoding JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Writing standard output failed (other than a closed pipe).
    #[error("writing standard output: {0}")]
    Stdout(io::Error),
    /// The command reported its outcome already: exit with this status,
    /// saying nothing more (as `certify check` does for a verdict other
    /// than "proved").
    #[error("exit status {0}")]
    Status(u8),
    /// Standard output was closed by its reader: stop quietly.
    #[error("standard output closed")]
    Closed,
    /// An error every rank of a distributed run meets at the same point,
    /// so that no rank waits for another: rank 0 reports it, the others
    /// exit with [`CliError::ReportedByRankZero`].
    #[cfg(feature = "mpi")]
    #[error("{0}")]
    OnEveryRank(Box<CliError>),
    /// Rank 0 reports this run's error: exit with failure, saying nothing.
    #[cfg(feature = "mpi")]
    #[error("rank 0 reports the error")]
    ReportedByRankZero,
}

impl CliError {
    /// An error of the file `path`.
    pub fn file(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> CliError {
        let path = path.into();
        move |source| CliError::File { path, source }
    }

    /// An error writing standard output: a closed pipe stops quietly.
    pub fn stdout(e: io::Error) -> CliError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError::Closed
        } else {
            CliError::Stdout(e)
        }
    }
}

/// The exit code of a command's result; prints the error once.
pub fn exit(r: Result<(), CliError>) -> ExitCode {
    match r {
        Ok(()) | Err(CliError::Closed) => ExitCode::SUCCESS,
        Err(CliError::Status(code)) => ExitCode::from(code),
        #[cfg(feature = "mpi")]
        Err(CliError::ReportedByRankZero) => ExitCode::FAILURE,
        Err(e) => {
            report(&e);
            ExitCode::FAILURE
        }
    }
}

/// Writes `e` as the command's one error line, to standard error (a failed
/// write is ignored: there is nowhere left to report it). Written here, not
/// through `out`, which depends on this module's error type.
pub fn report(e: &CliError) {
    report_line(&format!("error: {e}"));
}

/// Writes `line` and a newline to standard error in one write, so that the
/// lines of processes sharing a terminal (MPI ranks) never interleave.
pub fn report_line(line: &str) {
    use std::io::Write;
    let _ = io::stderr()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}
