//! Option groups shared by several commands (flattened into each command's
//! `*Args` struct) and the value parsers that let clap refuse bad numbers
//! with a message naming the option.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, RangedU64ValueParser, TypedValueParser};
use clap::{Args, ValueEnum};

use adji::game::GameId;
use adji::oracle::jobs::describe;
use adji::rules::RuleSet;

use crate::error::CliError;
use adji::value::LoopRule;

/// The parser of `--game`: a game's name ([`GameId::name`]), each listed
/// with its line of help ([`adji::oracle::jobs::describe`]).
pub fn game_parser() -> impl TypedValueParser<Value = GameId> {
    let names = GameId::ALL.map(|g| PossibleValue::new(g.name()).help(describe(g)));
    PossibleValuesParser::new(names).map(|s| s.parse::<GameId>().expect("a listed name"))
}

/// The rule set `--rules NAME` names for `game`.
///
/// # Errors
/// [`CliError::Input`] naming the game's rule sets.
pub fn rule_set(game: GameId, name: &str) -> Result<RuleSet, CliError> {
    RuleSet::parse(game, name).map_err(|e| CliError::Input(format!("--rules: {e}")))
}

/// Loop rule choice on the command line.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum LoopArg {
    /// Endless play scores the split of the position where the stretch began (default).
    Start,
    /// Endless play scores 0: the remaining seeds are shared evenly.
    Even,
}

/// `--game` and `--rules`: which game, under which reading of its rules.
/// Every command that plays one game flattens this; a command whose game
/// has no default adds `#[command(mut_args(game_required))]`.
#[derive(Args, Debug, Clone)]
pub struct GameRulesArgs {
    /// The game.
    #[arg(long, value_parser = game_parser(), default_value = "adjito")]
    pub game: GameId,
    /// The rule set: which reading of the game's rules (`adji rules` lists
    /// them; docs/RULES.md describes each).
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub rules: String,
}

impl GameRulesArgs {
    /// The rule set `--rules` names for `--game`.
    ///
    /// # Errors
    /// [`CliError::Input`] naming the game's rule sets.
    pub fn rule_set(&self) -> Result<RuleSet, CliError> {
        rule_set(self.game, &self.rules)
    }
}

/// Makes `--game` required (no default), for commands where guessing the
/// game would be costly (a build, a fit); other arguments pass unchanged.
/// (`mut_args`, unlike `mut_arg`, keeps `--game` first in the usage line.)
pub fn game_required(a: clap::Arg) -> clap::Arg {
    if a.get_id() == "game" {
        a.default_value(None::<&str>).required(true)
    } else {
        a
    }
}

/// `--game`, `--rules` and `--position`: what every position command takes.
#[derive(Args, Debug, Clone)]
pub struct PosArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// The position, in the notation `TOP/BOTTOM MOVER TOPSTORE-BOTTOMSTORE [PHASE]`, or `start`.
    #[arg(long, default_value = "start")]
    pub position: String,
}

/// `--loop`.
#[derive(Args, Debug, Clone, Copy)]
pub struct RuleArg {
    /// Loop rule (for tables: the rule they were built with).
    #[arg(long = "loop", value_enum, default_value = "start")]
    pub rule: LoopArg,
}

impl RuleArg {
    /// The library's loop rule.
    pub fn rule(self) -> LoopRule {
        match self.rule {
            LoopArg::Start => LoopRule::Start,
            LoopArg::Even => LoopRule::Even,
        }
    }
}

/// `--tables` and `--no-tables`: endgame tables for a search.
#[derive(Args, Debug, Clone)]
pub struct SearchTablesArgs {
    /// Endgame tables directory [default: tables, used when present]. A
    /// directory that gives no tables for this game and loop rule gets a warning.
    #[arg(long, value_name = "DIR", conflicts_with = "no_tables")]
    pub tables: Option<PathBuf>,
    /// Do not use endgame tables.
    #[arg(long)]
    pub no_tables: bool,
    /// Map the tables without reading them through first: no payload
    /// checksum at start, so a cold start on big tables costs only the pages
    /// probed. A corrupted value byte then goes unnoticed: run `adji tables
    /// verify` on the files before trusting them this way.
    #[arg(long, conflicts_with = "no_tables")]
    pub trust_tables: bool,
    /// Memory for the decoded blocks of compressed tables, e.g. 2G
    /// [default: what --memory leaves after the hash tables (for
    /// `openings`, half of it: its tree takes the rest)]. Every compressed
    /// level keeps at least 256 blocks (1 MiB, or the level when smaller),
    /// and a budget below that total is refused, naming it; with the rest,
    /// the smallest levels that fit are kept decoded once read, so that
    /// their probes cost what a raw level's do. Counted in the memory plan.
    #[arg(long, value_name = "SIZE", value_parser = crate::util::parse_size, conflicts_with = "no_tables")]
    pub table_cache: Option<u64>,
}

impl SearchTablesArgs {
    /// How much of each table file to check when opening it.
    pub fn check(&self) -> adji::tables::OpenCheck {
        if self.trust_tables {
            adji::tables::OpenCheck::Header
        } else {
            adji::tables::OpenCheck::Full
        }
    }
}

/// `--dir`: where the table files are.
#[derive(Args, Debug, Clone)]
pub struct TablesDirArg {
    /// Directory of the table files.
    #[arg(long, default_value = "tables")]
    pub dir: PathBuf,
}

/// The most worker threads accepted.
pub const MAX_THREADS: u64 = 1024;

/// `--json`, declared once for every command that answers in JSON.
#[derive(Args, Debug, Clone, Copy)]
pub struct JsonArg {
    /// Print JSON instead of text: one object (one a line with
    /// --positions-file); docs/CLI.md gives each command's fields.
    #[arg(long)]
    pub json: bool,
}

/// `--threads`.
#[derive(Args, Debug, Clone, Copy)]
pub struct ThreadsArg {
    /// Worker threads [default: all cores].
    #[arg(long, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS))]
    pub threads: Option<usize>,
}

/// `--memory`.
#[derive(Args, Debug, Clone, Copy)]
pub struct MemoryArg {
    /// Memory budget, e.g. 8G [default: the available RAM]. A plan that
    /// needs more is refused before anything is allocated.
    #[arg(long, allow_negative_numbers = true, value_name = "SIZE", value_parser = crate::util::parse_size)]
    pub memory: Option<u64>,
}

/// A parser of `--hash` sizes in MiB: 1 to the transposition table's maximum.
pub fn hash_mib() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(1..=adji::tt::MAX_MIB as u64)
}

/// `--threads`, `--hash` and `--memory`: what a search may use.
#[derive(Args, Debug, Clone, Copy)]
pub struct ComputeArgs {
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Transposition table size in MiB (`openings`: one per worker).
    #[arg(long, allow_negative_numbers = true, value_name = "MIB", default_value_t = 64, value_parser = hash_mib())]
    pub hash: usize,
    #[command(flatten)]
    pub memory: MemoryArg,
}

/// The longest time limit accepted, in seconds (about 31 years).
pub const MAX_SECONDS: f64 = 1e9;

/// Parses a time limit in seconds: a positive, finite number up to
/// [`MAX_SECONDS`] (clap names the option in the error).
pub fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, found '{s}'"))?;
    if !(v > 0.0 && v <= MAX_SECONDS) {
        return Err(format!(
            "expected a number of seconds above 0 and at most {MAX_SECONDS:e}, found '{s}'"
        ));
    }
    Ok(v)
}

/// Help of `--positions-file` (solve and probe share the contract).
pub const POSITIONS_FILE_HELP: &str = "A file with one position per line (blank lines and lines \
starting with # are skipped). A bad line (malformed, or not UTF-8) gets an error for that line \
only; the other lines are answered, and the exit code is 1 if any line failed";

/// `--game`, `--dir` and `--loop`: the tables a probe, stats or checksum reads.
#[derive(Args, Debug)]
pub struct TableSetArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub rule: RuleArg,
}

/// `--game` and `--rules` of a table command that works through a
/// directory: without `--game`, every table family the directory holds.
#[derive(Args, Debug, Clone)]
pub struct TableGamesArgs {
    /// The game [default: every game whose tables the directory holds].
    #[arg(long, value_parser = game_parser())]
    pub game: Option<GameId>,
    /// The rule set: which reading of the game's rules (`adji rules` lists
    /// them; docs/RULES.md describes each). Needs --game.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "default",
        requires = "game"
    )]
    pub rules: String,
}

impl TableGamesArgs {
    /// The table families to work on under loop rule `rule` in `dir`: the
    /// one `--game` and `--rules` name, or else every family with a level
    /// there (a level file, compressed level or manifest).
    ///
    /// # Errors
    /// A bad `--rules`; the directory cannot be listed; without `--game`,
    /// a directory that holds no tables under `rule` (naming what it holds
    /// under the other loop rule, if anything).
    pub fn families(
        &self,
        dir: &std::path::Path,
        rule: LoopRule,
    ) -> Result<Vec<RuleSet>, CliError> {
        if let Some(g) = self.game {
            return Ok(vec![rule_set(g, &self.rules)?.tables()]);
        }
        let holds = |r: RuleSet, l: LoopRule| -> Result<bool, CliError> {
            Ok(!adji::tables::locate::levels_present(dir, r, l)?
                .levels
                .is_empty())
        };
        let mut found = Vec::new();
        for r in RuleSet::families() {
            if holds(r, rule)? {
                found.push(r);
            }
        }
        if !found.is_empty() {
            return Ok(found);
        }
        let other = match rule {
            LoopRule::Start => LoopRule::Even,
            LoopRule::Even => LoopRule::Start,
        };
        let mut elsewhere = Vec::new();
        for r in RuleSet::families() {
            if holds(r, other)? {
                elsewhere.push(r.command_line());
            }
        }
        Err(CliError::Input(format!(
            "no tables for --loop {} in {}{}",
            rule.name(),
            dir.display(),
            match elsewhere.is_empty() {
                true => String::new(),
                false => format!(
                    " (it holds {} tables for --loop {})",
                    elsewhere.join(", "),
                    other.name()
                ),
            }
        )))
    }
}

/// Parses `--levels`: one level `N`, or a range with both ends included,
/// written `A-B`, `A..B` or `A..=B` (every table command takes every
/// form).
pub fn parse_levels(s: &str) -> Result<std::ops::RangeInclusive<u32>, String> {
    let num = |t: &str| {
        t.trim().parse::<u32>().map_err(|_| {
            format!("`{s}` is not a level or a range of levels (N, A-B or A..B, e.g. 16-20)")
        })
    };
    let (a, b) = if let Some((a, b)) = s.split_once("..") {
        (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?)
    } else if let Some((a, b)) = s.split_once('-') {
        (num(a)?, num(b)?)
    } else {
        (num(s)?, num(s)?)
    };
    if a > b {
        return Err(format!("`{s}`: the range is empty ({a} > {b})"));
    }
    Ok(a..=b)
}

#[cfg(test)]
mod tests {
    use super::parse_levels;

    #[test]
    fn levels_take_every_form() {
        for s in ["10-12", "10..12", "10..=12", " 10 - 12 "] {
            assert_eq!(parse_levels(s), Ok(10..=12), "{s}");
        }
        assert_eq!(parse_levels("7"), Ok(7..=7));
        for s in ["12-10", "12..10", "x", "1-2-3", "-3", "", "3.."] {
            assert!(parse_levels(s).is_err(), "{s}");
        }
    }
}
