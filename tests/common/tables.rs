//! Table helpers shared by the table tests: builds, the default verify,
//! and level files opened by game.

use std::path::Path;

use adji::game::{Game, GameId};
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::tables::retrograde::build_tables;
use adji::tables::verify::{verify_dir, VerifyOptions};
use adji::tables::{level_path, Table, TableError, TableSet};
use adji::value::LoopRule;
use adji::Adjito;

pub fn build<G: Game>(dir: &Path, rule: LoopRule, max: u32) -> TableSet {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap()
}

/// Verifies Adjito `start` tables in `dir` with the default options.
pub fn verify_adjito(dir: &Path) -> adji::tables::verify::DirReport {
    verify_dir::<Adjito>(dir, LoopRule::Start, &VerifyOptions::default(), |_| {}).unwrap()
}

/// Adjito `start` tables of levels 0..=`max` in a new directory, the path
/// of level `level`'s file and its bytes.
pub fn adjito_level_file(max: u32, level: u32) -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, max);
    let p = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, level);
    let good = std::fs::read(&p).unwrap();
    (dir, p, good)
}

pub fn open(dir: &Path, game: GameId, rule: LoopRule, level: u32) -> Result<Table, TableError> {
    let pits = if game == GameId::Adjito { 12 } else { 10 };
    let rules = RuleSet::default_for(game);
    Table::open(
        &level_path(dir, rules, rule, level),
        rules,
        rule,
        level,
        pits,
    )
}
