//! Writing to the terminal: reports and text to standard output, where a
//! failed write is an error (a closed pipe stops the command quietly), and
//! notes to standard error, which never fail a command.

use std::fmt::Display;
use std::io::{self, Write};

use serde::Serialize;

use crate::error::CliError;

/// Writes `text` to standard output as is.
pub fn print(text: impl Display) -> Result<(), CliError> {
    let mut o = io::stdout().lock();
    write!(o, "{text}")
        .and_then(|()| o.flush())
        .map_err(CliError::stdout)
}

/// Standard output of a command whose work is not its output (it writes
/// files, or its exit status is the answer): once the reader is gone (as
/// by `| head`), the work goes on without printing.
#[derive(Default)]
pub struct Log {
    closed: bool,
}

impl Log {
    /// Prints `text` unless standard output was closed.
    ///
    /// # Errors
    /// A failed write other than a closed pipe.
    pub fn print(&mut self, text: impl Display) -> Result<(), CliError> {
        if self.closed {
            return Ok(());
        }
        match print(text) {
            Err(CliError::Closed) => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

/// Writes a report: one JSON line with `json`, else its text.
pub fn report<R: Serialize + Display>(r: &R, json: bool) -> Result<(), CliError> {
    if json {
        print(format_args!("{}\n", serde_json::to_string(r)?))
    } else {
        print(r)
    }
}

/// Writes a line to standard error (plans, warnings, timings, errors).
/// The line goes out in one write (standard error is unbuffered, and a
/// formatted write would be several), so that the lines of processes
/// sharing a terminal, such as MPI ranks, never interleave.
pub fn note(text: impl Display) {
    let _ = io::stderr()
        .lock()
        .write_all(format!("{text}\n").as_bytes());
}

/// Writes a warning to standard error.
pub fn warn(text: impl Display) {
    note(format_args!("warning: {text}"));
}
