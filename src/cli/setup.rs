//! Setting up a search (`solve`, `openings`) or a build: worker threads and
//! endgame tables.

use std::path::Path;

use adji::game::Game;
use adji::tables::TableSet;
use adji::value::LoopRule;

use crate::args::{SearchTablesArgs, ThreadsArg};
use crate::error::CliError;

/// Sets the size of rayon's global pool; returns the number of workers.
pub fn set_threads(t: ThreadsArg) -> Result<usize, CliError> {
    if let Some(n) = t.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| CliError::Input(format!("--threads: {e}")))?;
    }
    Ok(rayon::current_num_threads())
}

/// Opens the endgame tables of a search: `None` with `--no-tables`, or when
/// the directory gives no level 0 for this game and rule.
pub fn search_tables<G: Game>(
    a: &SearchTablesArgs,
    rule: LoopRule,
) -> Result<Option<TableSet>, CliError> {
    if a.no_tables {
        return Ok(None);
    }
    let dir = a.tables.as_deref().unwrap_or(Path::new("tables"));
    if !dir.is_dir() {
        return Ok(None);
    }
    let set = TableSet::open_available::<G>(dir, rule)?;
    Ok((set.covered() > 0).then_some(set))
}
