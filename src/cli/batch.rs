//! Batch mode (`--positions-file`): each line is read as bytes and decoded on
//! its own, so that a malformed or non-UTF-8 line gets an error for that line
//! only; the others are answered. The command fails at the end if any line did.

use std::fmt::Display;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use adji::report::{quote, LineError};
use indicatif::ProgressBar;
use serde::Serialize;

use crate::error::CliError;
use crate::out;

/// A line of a positions file that holds something: its number (from 1)
/// and its text, or the error for it.
pub type Line = (usize, Result<String, LineError>);

/// The longest line read whole: a position takes under 100 bytes. A longer
/// line is an error for that line, read past without being kept.
pub const MAX_LINE: usize = 4096;

/// One line as read: at most [`MAX_LINE`] bytes of it, and its whole length.
struct RawLine {
    kept: Vec<u8>,
    len: u64,
}

/// Reads the next line (without its newline), keeping at most
/// [`MAX_LINE`] bytes of it; `None` at the end of the file.
fn next_line(r: &mut impl BufRead) -> io::Result<Option<RawLine>> {
    let mut line = RawLine {
        kept: Vec::new(),
        len: 0,
    };
    let mut started = false;
    loop {
        let avail = r.fill_buf()?;
        if avail.is_empty() {
            return Ok(started.then_some(line));
        }
        started = true;
        let end = avail.iter().position(|&b| b == b'\n');
        let chunk = &avail[..end.unwrap_or(avail.len())];
        let room = MAX_LINE.saturating_sub(line.kept.len()).min(chunk.len());
        line.kept.extend_from_slice(&chunk[..room]);
        line.len += chunk.len() as u64;
        let used = chunk.len() + end.is_some() as usize;
        r.consume(used);
        if end.is_some() {
            return Ok(Some(line));
        }
    }
}

/// The text of line `number`, or its error: too long, or not UTF-8.
fn decode(number: usize, mut line: RawLine) -> Result<String, LineError> {
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if line.len > MAX_LINE as u64 {
        return Err(LineError {
            error: format!("line too long ({} bytes; at most {MAX_LINE})", line.len),
            input: quote(&lossy(&line.kept), line.len),
            line: number,
        });
    }
    if line.kept.last() == Some(&b'\r') {
        line.kept.pop();
    }
    String::from_utf8(line.kept)
        .map_err(|e| LineError::new(number, "not valid UTF-8".into(), &lossy(e.as_bytes())))
}

/// The lines of `path` that are neither blank nor comments (`#`). `path`
/// must be a regular file (a FIFO or device is refused before it is opened).
pub fn lines(path: &Path) -> Result<impl Iterator<Item = Result<Line, CliError>>, CliError> {
    let file = adji::fsutil::open_regular(path).map_err(CliError::file(path))?;
    let path = path.to_path_buf();
    let mut r = BufReader::new(file);
    let mut number = 0;
    let lines = std::iter::from_fn(move || match next_line(&mut r) {
        Ok(None) => None,
        Ok(Some(line)) => {
            number += 1;
            Some(Ok((number, decode(number, line))))
        }
        Err(e) => Some(Err(CliError::file(path.clone())(e))),
    });
    Ok(lines.filter(|l| match l {
        Ok((_, Ok(t))) => !t.trim().is_empty() && !t.trim_start().starts_with('#'),
        _ => true,
    }))
}

/// Answers each line with `answer`, printing its report (or the line's
/// error) as it comes, a blank line after each in text mode. Fails at the
/// end, naming how many lines failed, if any did (`verb`: "solved", "probed").
pub fn answer<R: Serialize + Display>(
    file: &Path,
    lines: impl IntoIterator<Item = Result<Line, CliError>>,
    json: bool,
    bar: &ProgressBar,
    verb: &str,
    mut answer: impl FnMut(&str) -> Result<R, String>,
) -> Result<(), CliError> {
    let mut bad = 0;
    let each = || -> Result<(), CliError> {
        for line in lines {
            let (number, text) = line?;
            let r =
                text.and_then(|t| answer(&t).map_err(|error| LineError::new(number, error, &t)));
            bar.inc(1);
            bad += r.is_err() as usize;
            bar.suspend(|| print_answer(&r, json))?;
        }
        Ok(())
    };
    let r = each();
    // Cleared on every exit, a closed pipe or an unreadable file too.
    bar.finish_and_clear();
    // A closed pipe stops the batch quietly, but a line that already
    // failed still fails the command.
    match r {
        Err(CliError::Closed) if bad > 0 => {}
        r => r?,
    }
    if bad > 0 {
        return Err(CliError::Failed(format!(
            "{bad} line(s) of {} could not be {verb}",
            file.display()
        )));
    }
    Ok(())
}

/// Prints a line's answer: one JSON line, or the text and a blank line.
fn print_answer<R: Serialize + Display>(
    r: &Result<R, LineError>,
    json: bool,
) -> Result<(), CliError> {
    match r {
        Ok(r) => out::report(r, json),
        Err(e) => out::report(e, json),
    }?;
    if json {
        Ok(())
    } else {
        out::print("\n")
    }
}
