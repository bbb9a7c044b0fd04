//! Batch mode (`--positions-file`): a malformed line gets an error for that
//! line only; the others are answered. The command fails at the end if any
//! line did.

use std::fmt::Display;
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
    let text = std::fs::read_to_string(path).map_err(CliError::file(path))?;
    let lines: Vec<_> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| Ok((i + 1, Ok(l.to_string()))))
        .collect();
    Ok(lines.into_iter())
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
        bar.suspend(|| {
            match &r {
                Ok(r) => out::report(r, json),
                Err(e) => out::report(e, json),
            }?;
            if json {
                Ok(())
            } else {
                out::print("\n")
            }
        })?;
        bad += r.is_err() as usize;
    }
    bar.finish_and_clear();
    if bad > 0 {
        return Err(CliError::Failed(format!(
            "{bad} line(s) of {} could not be {verb}",
            file.display()
        )));
    }
    Ok(())
}
