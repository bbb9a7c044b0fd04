//! Batch mode (`--positions-file`): each line is read as bytes and decoded on
//! its own, so that a malformed or non-UTF-8 line gets an error for that line
//! only; the others are answered. The command fails at the end if any line did.

use std::fmt::Display;
use std::io::{BufRead, BufReader};
use std::path::Path;

use adji::report::LineError;
use indicatif::ProgressBar;
use serde::Serialize;

use crate::error::CliError;
use crate::out;

/// A line of a positions file that holds something: its number (from 1)
/// and its text, or the error for it.
pub type Line = (usize, Result<String, LineError>);

/// The lines of `path` that are neither blank nor comments (`#`).
pub fn lines(path: &Path) -> Result<impl Iterator<Item = Result<Line, CliError>>, CliError> {
    let file = std::fs::File::open(path).map_err(CliError::file(path))?;
    let path = path.to_path_buf();
    let lines = BufReader::new(file).split(b'\n').enumerate();
    Ok(lines.filter_map(move |(i, bytes)| {
        let mut bytes = match bytes {
            Ok(b) => b,
            Err(e) => return Some(Err(CliError::file(path.clone())(e))),
        };
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let text = String::from_utf8(bytes).map_err(|e| LineError {
            error: "not valid UTF-8".into(),
            input: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            line: i + 1,
        });
        let keep = match &text {
            Ok(t) => !t.trim().is_empty() && !t.trim_start().starts_with('#'),
            Err(_) => true,
        };
        keep.then_some(Ok((i + 1, text)))
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
            let r = text.and_then(|t| {
                answer(&t).map_err(|error| LineError {
                    error,
                    input: t,
                    line: number,
                })
            });
            bar.inc(1);
            bar.suspend(|| print_answer(&r, json))?;
            bad += r.is_err() as usize;
        }
        Ok(())
    };
    let r = each();
    // Cleared on every exit, a closed pipe or an unreadable file too.
    bar.finish_and_clear();
    r?;
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
