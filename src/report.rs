//! Reports: what each command answers, as plain data built from library
//! results. Each type serializes to the command's JSON (`--json`) and its
//! `Display` gives the command's text; the command line and the web server
//! print or serve these same types.
//!
//! Every `Display` writes whole lines, each ending with a newline. Fields
//! are declared in alphabetical order, so that the JSON keeps the key order
//! of the tool's earlier releases byte for byte.
//!
//! ```
//! use adji::report::MovesReport;
//! use adji::{Adjito, Game, State};
//!
//! let start = State { pos: Adjito::start(), stores: [0, 0] };
//! let r = MovesReport::new::<Adjito>(&start);
//! assert_eq!(r.moves[1].mv, "2B");
//! let json = serde_json::to_string(&r).unwrap();
//! assert!(json.starts_with(r#"{"game_over":null,"moves":[{"captured":4,"move":"1B","#));
//! assert!(r.to_string().starts_with("   1B  4,0,4,4,4,4/0,5,5,5,5,4 A 0-4  captures 4\n"));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Serialize, Serializer};

use crate::driver::{final_score, replay as drive, GameResult, Replay, ReplayError};
use crate::game::{EndReason, Game, Move, Position, State};
use crate::notation::{format_board, format_move, format_state, parse_move};
use crate::search::{Analysis, PvEnd};
use crate::tables::verify::Mismatch;
use crate::tables::{move_values, TableSet};
use crate::value::Range;

/// One number per player: a JSON object keyed by the players' names
/// (`{"A":25,"B":23}`, in name order); in text, by absolute side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sides<T> {
    /// The players' names, by absolute side.
    pub names: [char; 2],
    /// The numbers, by absolute side.
    pub values: [T; 2],
}

impl<T> Sides<T> {
    /// The numbers of game `G`'s players, by absolute side.
    pub fn new<G: Game>(values: [T; 2]) -> Self {
        Sides {
            names: [G::side_name(0), G::side_name(1)],
            values,
        }
    }
}

impl<T: Serialize> Serialize for Sides<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m: BTreeMap<String, &T> = (0..2)
            .map(|i| (self.names[i].to_string(), &self.values[i]))
            .collect();
        m.serialize(s)
    }
}

impl<T: fmt::Display> Sides<T> {
    /// `B: 20 A: 28`: both players, by absolute side.
    pub fn text(&self) -> String {
        format!(
            "{}: {} {}: {}",
            self.names[0], self.values[0], self.names[1], self.values[1]
        )
    }
}

impl<T: Serialize> fmt::Display for Sides<T> {
    /// The JSON form, as the solve text shows projected scores.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&s)
    }
}

/// An error for one line of a positions file; the other lines are answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineError {
    /// What is wrong.
    pub error: String,
    /// The line as read (invalid UTF-8 replaced by U+FFFD).
    pub input: String,
    /// Line number, from 1.
    pub line: usize,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "line {}: error: {}", self.line, self.error)
    }
}

/// How a game ended, with the split of the seeds (`moves` on a finished game).
#[derive(Clone, Debug, Serialize)]
pub struct GameEnd {
    /// The rule, in words.
    pub description: &'static str,
    /// The rule.
    pub reason: EndReason,
    /// Each player's final seeds.
    pub split: Sides<u32>,
}

/// One legal move of `moves`.
#[derive(Clone, Debug, Serialize)]
pub struct MoveLine {
    /// Seeds it captures.
    pub captured: u8,
    /// Its name.
    #[serde(rename = "move")]
    pub mv: String,
    /// The position after it.
    pub position: String,
}

/// `moves`: each legal move with the position after it, or how the game ended.
#[derive(Clone, Debug, Serialize)]
pub struct MovesReport {
    /// Set when the game is over (then `moves` is empty).
    pub game_over: Option<GameEnd>,
    /// The legal moves, in generation order.
    pub moves: Vec<MoveLine>,
    /// The position.
    pub position: String,
}

impl MovesReport {
    /// The legal moves of `st`.
    pub fn new<G: Game>(st: &State) -> Self {
        let legal = G::legal_moves(&st.pos);
        let moves = legal
            .iter()
            .map(|mv| {
                let (after, captured) = st.play::<G>(mv);
                MoveLine {
                    captured,
                    mv: format_move::<G>(&st.pos, mv),
                    position: format_state::<G>(&after),
                }
            })
            .collect();
        let game_over = G::end_reason(&st.pos).filter(|_| legal.is_empty());
        MovesReport {
            game_over: game_over.map(|reason| GameEnd {
                description: reason.describe(),
                reason,
                split: Sides::new::<G>(final_score::<G>(st)),
            }),
            moves,
            position: format_state::<G>(st),
        }
    }
}

impl fmt::Display for MovesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(end) = &self.game_over {
            return writeln!(
                f,
                "game over: {}; split {}",
                end.description,
                end.split.text()
            );
        }
        for m in &self.moves {
            writeln!(f, "{:>5}  {}  captures {}", m.mv, m.position, m.captured)?;
        }
        Ok(())
    }
}

/// `perft`: the number of move sequences of a given length.
#[derive(Clone, Debug, Serialize)]
pub struct PerftReport {
    /// With `--divide`: the count after each first move, in generation
    /// order (a JSON object keyed by move name).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "divide_map")]
    pub divide: Option<Vec<(String, u64)>>,
    /// Move sequences of exactly `depth` moves.
    pub nodes: u64,
}

fn divide_map<S: Serializer>(d: &Option<Vec<(String, u64)>>, s: S) -> Result<S::Ok, S::Error> {
    let m: Option<BTreeMap<&str, u64>> = d
        .as_ref()
        .map(|v| v.iter().map(|(k, n)| (k.as_str(), *n)).collect());
    m.serialize(s)
}

impl PerftReport {
    /// Counts the sequences of `depth` moves from `pos` (in parallel).
    pub fn new<G: Game>(pos: &Position, depth: u32, divide: bool) -> Self {
        let d = crate::perft::divide::<G>(pos, depth);
        let nodes = if depth == 0 {
            1
        } else {
            d.iter().map(|x| x.1).sum()
        };
        PerftReport {
            divide: divide.then(|| {
                d.iter()
                    .map(|&(mv, n)| (format_move::<G>(pos, mv), n))
                    .collect()
            }),
            nodes,
        }
    }
}

impl fmt::Display for PerftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (mv, n) in self.divide.iter().flatten() {
            writeln!(f, "{mv}: {n}")?;
        }
        writeln!(f, "nodes {}", self.nodes)
    }
}

/// How a played game ended (`replay`).
#[derive(Clone, Debug, Serialize)]
pub struct ResultReport {
    /// The rule, in words.
    pub description: &'static str,
    /// The rule.
    pub reason: EndReason,
    /// Each player's final seeds.
    pub score: Sides<u32>,
    /// The winner's name, or none for a draw.
    pub winner: Option<char>,
}

impl ResultReport {
    /// The report of a game result of `G`.
    pub fn new<G: Game>(r: &GameResult) -> Self {
        ResultReport {
            description: r.reason.describe(),
            reason: r.reason,
            score: Sides::new::<G>(r.score),
            winner: r.winner.map(G::side_name),
        }
    }
}

impl fmt::Display for ResultReport {
    /// One line, without a newline: it also ends error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game over: {}; final {}; ",
            self.description,
            self.score.text()
        )?;
        match self.winner {
            Some(w) => write!(f, "player {w} wins"),
            None => write!(f, "draw"),
        }
    }
}

/// One move of a replay.
#[derive(Clone, Debug, Serialize)]
pub struct StepReport {
    /// Seeds it captured.
    pub captured: u8,
    /// Its name.
    #[serde(rename = "move")]
    pub mv: String,
    /// The position after it.
    pub position: String,
}

/// `replay`: each position of a played line and, if it ended, the result.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// The result, when the game ended.
    pub result: Option<ResultReport>,
    /// The starting position.
    pub start: String,
    /// Each move.
    pub steps: Vec<StepReport>,
}

impl ReplayReport {
    /// The report of a replay of `G`.
    pub fn new<G: Game>(rep: &Replay) -> Self {
        ReplayReport {
            result: rep.result.as_ref().map(ResultReport::new::<G>),
            start: format_state::<G>(&rep.start),
            steps: rep
                .steps
                .iter()
                .map(|s| StepReport {
                    captured: s.captured,
                    mv: s.name.clone(),
                    position: format_state::<G>(&s.after),
                })
                .collect(),
        }
    }
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "      {}", self.start)?;
        for (i, s) in self.steps.iter().enumerate() {
            write!(f, "{:>3}. {:>4}  {}", i + 1, s.mv, s.position)?;
            if s.captured > 0 {
                write!(f, "  (captures {})", s.captured)?;
            }
            writeln!(f)?;
        }
        match &self.result {
            Some(r) => writeln!(f, "{r}"),
            None => writeln!(f, "game continues"),
        }
    }
}

/// A position the endgame tables cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// Adji-Boto's opening phase is not in the tables.
    #[error("tables cover positions after the opening only (phase `main`)")]
    Opening,
    /// The level (or a level a move leads to) is not built.
    #[error(
        "level {level} ({level} seeds on the board) is not built; tables cover levels 0..={}",
        *.covered as i64 - 1
    )]
    NotCovered {
        /// The position's level.
        level: u32,
        /// Levels the tables cover (`0..covered`).
        covered: u32,
    },
}

/// One move's value from the tables.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeMove {
    /// Its name.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its value for the mover.
    pub value: i32,
}

/// `tables probe`: a position's value, bounds and move values from the tables.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    /// The moves of the best value.
    pub best_moves: Vec<String>,
    /// Why the game is over, if it is.
    pub game_over: Option<&'static str>,
    /// The value when endless play is the best outcome for the mover.
    pub hi: i32,
    /// The value when endless play is the worst outcome for the mover.
    pub lo: i32,
    /// Whether the value depends on how endless play is scored.
    pub loop_sensitive: bool,
    /// Every legal move's value.
    pub moves: Vec<ProbeMove>,
    /// The board and mover.
    pub position: String,
    /// The value (seeds on the board, mover minus opponent).
    pub value: i32,
}

impl ProbeReport {
    /// Looks `pos` up in `set`.
    ///
    /// # Errors
    /// [`ProbeError`] for an opening position or a level not covered.
    pub fn new<G: Game>(set: &TableSet, pos: &Position) -> Result<Self, ProbeError> {
        if pos.in_opening() {
            return Err(ProbeError::Opening);
        }
        let not_covered = ProbeError::NotCovered {
            level: pos.level(),
            covered: set.covered(),
        };
        let b = set.bounds::<G>(pos).ok_or(not_covered)?;
        let moves = move_values::<G>(set, pos).ok_or(not_covered)?;
        // The best moves are those of the largest (exact) value.
        let best = moves.iter().map(|m| m.value).max();
        Ok(ProbeReport {
            best_moves: moves
                .iter()
                .filter(|m| Some(m.value) == best)
                .map(|m| format_move::<G>(pos, m.mv))
                .collect(),
            game_over: G::end_reason(pos).map(|r| r.describe()),
            hi: b.hi,
            lo: b.lo,
            loop_sensitive: b.loop_sensitive(),
            moves: moves
                .iter()
                .map(|m| ProbeMove {
                    mv: format_move::<G>(pos, m.mv),
                    value: m.value,
                })
                .collect(),
            position: format_board::<G>(pos),
            value: b.value(set.rule.w::<G>(pos)),
        })
    }
}

/// Win, draw or loss for the mover of a final margin.
fn outcome(margin: i32) -> &'static str {
    match margin.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "position {}", self.position)?;
        writeln!(
            f,
            "value {:+} ({} for the mover), loop-sensitive: {}",
            self.value,
            outcome(self.value),
            self.loop_sensitive
        )?;
        if let Some(r) = self.game_over {
            writeln!(f, "game over: {r}")?;
        }
        for m in &self.moves {
            writeln!(f, "  {:>5} {:+}", m.mv, m.value)?;
        }
        if !self.best_moves.is_empty() {
            writeln!(f, "best: {}", self.best_moves.join(" "))?;
        }
        Ok(())
    }
}

/// Projected final scores: exact, or between two projections.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum FinalScore {
    /// The value is exact.
    Exact(Sides<i32>),
    /// The value is only bounded.
    Between {
        /// At the lower bound.
        lower: Sides<i32>,
        /// At the upper bound.
        upper: Sides<i32>,
    },
}

/// One root move of a solve.
#[derive(Clone, Debug, Serialize)]
pub struct SolveMove {
    /// Seeds it captures.
    pub captured: u8,
    /// Whether its value is exact.
    pub exact: bool,
    /// Lower bound of its value.
    pub lower: i32,
    /// Its name.
    #[serde(rename = "move")]
    pub mv: String,
    /// Upper bound of its value.
    pub upper: i32,
    /// Its value, when exact.
    pub value: Option<i32>,
}

impl SolveMove {
    /// The value in words: exact, bounded, or unresolved.
    fn text(&self) -> String {
        let r = Range {
            lower: self.lower,
            upper: self.upper,
        };
        if r.exact() {
            format!("{:+}", r.lower)
        } else if r.lower > -1000 && r.upper < 1000 {
            format!(
                "between {:+} and {:+} (lower bound {:+}, upper bound {:+})",
                r.lower, r.upper, r.lower, r.upper
            )
        } else {
            "unresolved".into()
        }
    }
}

/// `solve`: a position's value (or bounds), every move's, and the line.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// The moves of the exact best value (empty unless exact).
    pub best_moves: Vec<String>,
    /// Whether the value is exact.
    pub exact: bool,
    /// Projected final scores.
    pub final_score: FinalScore,
    /// Whether the whole answer came from the endgame tables.
    pub from_tables: bool,
    /// Why the game is over, if it is.
    pub game_over: Option<&'static str>,
    /// Whether the value depends on how endless play is scored (none: unresolved).
    pub loop_sensitive: Option<bool>,
    /// Lower bound of the value.
    pub lower: i32,
    /// Every legal move, best first.
    pub moves: Vec<SolveMove>,
    /// Nodes searched.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// The position.
    pub position: String,
    /// The principal variation.
    pub pv: Vec<String>,
    /// Why the principal variation stops.
    pub pv_end: PvEnd,
    /// Endgame-table probes that answered.
    pub table_hits: u64,
    /// Milliseconds.
    pub time_ms: u64,
    /// Transposition-table hit rate.
    pub tt_hit_rate: f64,
    /// Upper bound of the value.
    pub upper: i32,
    /// The value, when exact.
    pub value: Option<i32>,
    /// Win, draw or loss for the mover (or the outcomes the bounds allow).
    pub wdl: &'static str,
    /// The board diagram (text only).
    #[serde(skip)]
    pub diagram: String,
}

/// Win, draw or loss for the mover, from bounds on the value.
fn wdl(lower: i32, upper: i32, mover: u32, opp: u32, n: u32) -> &'static str {
    // Final scores: mover gets (n + v) / 2 of the board.
    let fin = |v: i32| (mover as i32 * 2 + n as i32 + v) - (opp as i32 * 2 + n as i32 - v);
    match (fin(lower).signum(), fin(upper).signum()) {
        (1, _) => "win",
        (_, -1) => "loss",
        (0, 0) => "draw",
        (0, _) => "draw or win",
        (_, 0) => "loss or draw",
        _ => "unresolved",
    }
}

impl SolveReport {
    /// The report of analysis `a` of `st`.
    pub fn new<G: Game>(st: &State, a: &Analysis) -> Self {
        let pos = &st.pos;
        let n = pos.level();
        let side = pos.side as usize;
        let (ms, os) = (st.stores[side] as u32, st.stores[side ^ 1] as u32);
        let final_of = |v: i32| {
            let mut s = [0i32; 2];
            s[side] = ms as i32 + (n as i32 + v) / 2;
            s[side ^ 1] = os as i32 + (n as i32 - v) / 2;
            Sides::new::<G>(s)
        };
        let exact = a.value.exact();
        let stats = &a.stats;
        let nps = stats.nodes as f64 / (stats.time_ms.max(1) as f64 / 1000.0);
        SolveReport {
            best_moves: a
                .moves
                .iter()
                .filter(|m| exact && m.value.exact() && m.value.lower == a.value.lower)
                .map(|m| format_move::<G>(pos, m.mv))
                .collect(),
            exact,
            final_score: if exact {
                FinalScore::Exact(final_of(a.value.lower))
            } else {
                FinalScore::Between {
                    lower: final_of(a.value.lower),
                    upper: final_of(a.value.upper),
                }
            },
            from_tables: a.from_tables,
            game_over: G::end_reason(pos).map(|r| r.describe()),
            loop_sensitive: a.loop_sensitive(),
            lower: a.value.lower,
            moves: a.moves.iter().map(|m| solve_move::<G>(pos, m)).collect(),
            nodes: stats.nodes,
            nps: nps.round() as u64,
            position: format_state::<G>(st),
            pv: pv_names::<G>(pos, &a.pv),
            pv_end: a.pv_end,
            table_hits: stats.table_hits,
            time_ms: stats.time_ms,
            tt_hit_rate: if stats.tt_probes > 0 {
                stats.tt_hits as f64 / stats.tt_probes as f64
            } else {
                0.0
            },
            upper: a.value.upper,
            value: exact.then_some(a.value.lower),
            wdl: wdl(a.value.lower, a.value.upper, ms, os, n),
            diagram: crate::display::diagram::<G>(st),
        }
    }
}

fn solve_move<G: Game>(pos: &Position, m: &crate::search::MoveResult) -> SolveMove {
    SolveMove {
        captured: m.captured,
        exact: m.value.exact(),
        lower: m.value.lower,
        mv: format_move::<G>(pos, m.mv),
        upper: m.value.upper,
        value: m.value.exact().then_some(m.value.lower),
    }
}

/// The names of a line of moves played from `pos`.
fn pv_names<G: Game>(pos: &Position, pv: &[crate::game::Move]) -> Vec<String> {
    let mut cur = *pos;
    pv.iter()
        .map(|&mv| {
            let name = format_move::<G>(&cur, mv);
            cur = G::play_unchecked(&cur, mv).pos;
            name
        })
        .collect()
}

/// Why a principal variation stops, in words.
fn pv_end_text(e: PvEnd) -> &'static str {
    match e {
        PvEnd::GameOver => "game over",
        PvEnd::TableHit => "endgame-table hit",
        PvEnd::Loop => "repetition",
        PvEnd::Length => "length cap",
        PvEnd::Unresolved => "unresolved",
    }
}

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diagram)?;
        writeln!(f, "  {}", self.position)?;
        if let Some(r) = self.game_over {
            writeln!(f, "game over: {r}")?;
        }
        let (lo, hi) = (self.lower, self.upper);
        match &self.final_score {
            FinalScore::Exact(s) => {
                writeln!(
                    f,
                    "value: {lo:+} (seeds on the board, mover minus opponent)"
                )?;
                writeln!(f, "projected final score: {s}")?;
            }
            FinalScore::Between { lower, upper } => {
                writeln!(f, "value: unresolved; lower bound {lo:+}, upper bound {hi:+} (a limit stopped the search)")?;
                writeln!(f, "projected final score between {lower} and {upper}")?;
            }
        }
        writeln!(f, "result for the mover: {}", self.wdl)?;
        self.fmt_moves(f)
    }
}

impl SolveReport {
    /// The text from the loop-sensitivity line on: moves, line, counters.
    fn fmt_moves(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.loop_sensitive {
            Some(true) => writeln!(
                f,
                "loop-sensitive: yes (the value depends on how endless play is scored)"
            )?,
            Some(false) => writeln!(f, "loop-sensitive: no")?,
            None => writeln!(f, "loop-sensitive: unresolved")?,
        }
        if !self.moves.is_empty() {
            writeln!(f, "moves (best first):")?;
        }
        for m in &self.moves {
            let cap = if m.captured > 0 {
                format!("  (captures {})", m.captured)
            } else {
                String::new()
            };
            writeln!(f, "  {:>5} {}{}", m.mv, m.text(), cap)?;
        }
        if !self.pv.is_empty() {
            let end = pv_end_text(self.pv_end);
            writeln!(f, "principal variation: {} ({end})", self.pv.join(" "))?;
        }
        writeln!(
            f,
            "nodes {}, time {} ms, {} nodes/s, TT hit rate {:.1}%, table hits {}",
            self.nodes,
            self.time_ms,
            self.nps,
            self.tt_hit_rate * 100.0,
            self.table_hits
        )
    }
}

impl fmt::Display for crate::bench::BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.positions {
            writeln!(
                f,
                "{:<9} {:<48} value {:+4}  nodes {:>10}  {:>6} ms",
                p.game, p.position, p.value, p.nodes, p.time_ms
            )?;
        }
        writeln!(f, "===========================")?;
        writeln!(f, "total time (ms) : {}", self.time_ms)?;
        writeln!(f, "nodes searched  : {}", self.nodes)?;
        writeln!(f, "nodes/second    : {}", self.nps)
    }
}

/// An entry of a table file whose stored bounds differ from its successors.
#[derive(Clone, Debug, Serialize)]
pub struct EntryMismatch {
    /// The board (relative to the mover).
    pub board: String,
    /// Its rank in the level.
    pub rank: u64,
    /// Recomputed `hi`.
    pub recomputed_hi: i32,
    /// Recomputed `lo`.
    pub recomputed_lo: i32,
    /// Stored `hi`.
    pub stored_hi: i32,
    /// Stored `lo`.
    pub stored_lo: i32,
}

impl EntryMismatch {
    /// The report of a mismatch of game `G`.
    pub fn new<G: Game>(m: &Mismatch) -> Self {
        EntryMismatch {
            board: format_board::<G>(&m.position),
            rank: m.index,
            recomputed_hi: m.recomputed.hi,
            recomputed_lo: m.recomputed.lo,
            stored_hi: m.stored.hi,
            stored_lo: m.stored.lo,
        }
    }
}

/// What `tables verify` found for one level of one game and loop rule.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CheckOutcome {
    /// Header, checksum and every entry check out.
    Ok {
        /// Entries of the level.
        entries: usize,
        /// Entries recomputed (all, or a sample with `--sample`).
        recomputed: u64,
        /// Seconds taken.
        seconds: f64,
    },
    /// The file is missing (levels above it cannot be recomputed).
    Missing,
    /// The file cannot be opened as this level's table.
    Bad {
        /// Why.
        error: String,
    },
    /// Entries differ from their successors.
    Differ {
        /// How many.
        count: u64,
        /// The first few.
        examples: Vec<EntryMismatch>,
    },
    /// Header and checksum are fine, but a lower level is missing or bad,
    /// so the entries were not recomputed.
    Unchecked,
}

/// One level checked by `tables verify`.
#[derive(Clone, Debug, Serialize)]
pub struct LevelCheck {
    /// The level.
    pub level: u32,
    /// What was found.
    pub outcome: CheckOutcome,
    /// The file.
    pub path: PathBuf,
}

impl LevelCheck {
    /// The problem found, in one line (none for `Ok` and `Unchecked`,
    /// whose cause is reported at a lower level).
    pub fn problem(&self) -> Option<String> {
        let p = self.path.display();
        match &self.outcome {
            CheckOutcome::Ok { .. } | CheckOutcome::Unchecked => None,
            CheckOutcome::Missing => Some(format!(
                "{p}: level {} is missing; the levels above it cannot be verified",
                self.level
            )),
            CheckOutcome::Bad { error } => Some(error.clone()),
            CheckOutcome::Differ { count, .. } => {
                Some(format!("{p}: {count} entries differ from their successors"))
            }
        }
    }

    /// Problems counted: one per missing or bad file, one per wrong entry.
    pub fn problems(&self) -> u64 {
        match &self.outcome {
            CheckOutcome::Ok { .. } | CheckOutcome::Unchecked => 0,
            CheckOutcome::Missing | CheckOutcome::Bad { .. } => 1,
            CheckOutcome::Differ { count, .. } => *count,
        }
    }
}

impl fmt::Display for LevelCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.outcome {
            CheckOutcome::Ok {
                entries,
                recomputed,
                seconds,
            } if *recomputed < *entries as u64 => writeln!(
                f,
                "ok   {p} ({recomputed} of {entries} entries recomputed, a sample; {seconds:.2}s)"
            ),
            CheckOutcome::Ok {
                entries, seconds, ..
            } => writeln!(f, "ok   {p} ({entries} entries, {seconds:.2}s)"),
            CheckOutcome::Unchecked => writeln!(
                f,
                "SKIP {p}: header and checksum ok; entries not recomputed (a lower level is missing or bad)"
            ),
            CheckOutcome::Differ { examples, .. } => {
                writeln!(f, "FAIL {}", self.problem().unwrap_or_default())?;
                for m in examples {
                    writeln!(
                        f,
                        "     rank {} board {}: stored lo {} hi {}, recomputed lo {} hi {}",
                        m.rank, m.board, m.stored_lo, m.stored_hi, m.recomputed_lo, m.recomputed_hi
                    )?;
                }
                Ok(())
            }
            CheckOutcome::Missing | CheckOutcome::Bad { .. } => {
                writeln!(f, "FAIL {}", self.problem().unwrap_or_default())
            }
        }
    }
}

/// One move of an [`AnalyseReport`].
#[derive(Clone, Debug, Serialize)]
pub struct EstimateMove {
    /// Seeds it captures.
    pub captured: u8,
    /// The engine's estimate of the move (seeds for the mover): not a value.
    pub estimate: f64,
    /// Whether the proven bounds meet.
    pub exact: bool,
    /// Proven lower bound of the move's value.
    pub lower: i32,
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Proven upper bound of the move's value.
    pub upper: i32,
    /// The move's value, only when proven exact.
    pub value: Option<i32>,
}

/// One completed iteration of the estimate engine (an engine "info" line).
#[derive(Clone, Debug, Serialize)]
pub struct IterationReport {
    /// Depth in plies.
    pub depth: u32,
    /// Root estimate after it.
    pub estimate: f64,
    /// Proven lower bound after it.
    pub lower: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// The estimated best line.
    pub pv: Vec<String>,
    /// Milliseconds so far.
    pub time_ms: u64,
    /// Proven upper bound after it.
    pub upper: i32,
}

/// What `analyse` answers: an estimate, kept apart from the proven bounds
/// of the same search; `value` is set only when those bounds meet.
#[derive(Clone, Debug, Serialize)]
pub struct AnalyseReport {
    /// The best move by estimate.
    pub best: Option<String>,
    /// Deepest completed iteration.
    pub depth: u32,
    /// The engine's estimate of the position (seeds for the mover): not a value.
    pub estimate: f64,
    /// Whether the proven bounds meet.
    pub exact: bool,
    /// One entry per completed iteration.
    pub iterations: Vec<IterationReport>,
    /// Proven lower bound of the value.
    pub lower: i32,
    /// Every legal move, best estimate first.
    pub moves: Vec<EstimateMove>,
    /// Nodes searched.
    pub nodes: u64,
    /// The position.
    pub position: String,
    /// Milliseconds.
    pub time_ms: u64,
    /// Proven upper bound of the value.
    pub upper: i32,
    /// The value, only when proven exact.
    pub value: Option<i32>,
}

/// The moves of `line` from `pos`, named as their movers see them.
fn line_names<G: Game>(pos: &Position, line: &[crate::game::Move]) -> Vec<String> {
    let mut p = *pos;
    line.iter()
        .map(|&m| {
            let s = format_move::<G>(&p, m);
            p = G::play_unchecked(&p, m).pos;
            s
        })
        .collect()
}

impl AnalyseReport {
    /// The report of the engine's answer `e` for `st`.
    pub fn new<G: Game>(st: &State, e: &crate::engine::Estimate) -> Self {
        let name = |m| format_move::<G>(&st.pos, m);
        AnalyseReport {
            best: e.best().map(name),
            depth: e.depth,
            estimate: e.estimate,
            exact: e.proven.exact(),
            iterations: e
                .infos
                .iter()
                .map(|i| IterationReport {
                    depth: i.depth,
                    estimate: i.estimate,
                    lower: i.proven.lower,
                    nodes: i.nodes,
                    pv: line_names::<G>(&st.pos, &i.pv),
                    time_ms: i.time_ms,
                    upper: i.proven.upper,
                })
                .collect(),
            lower: e.proven.lower,
            moves: e
                .moves
                .iter()
                .map(|m| EstimateMove {
                    captured: m.captured,
                    estimate: m.estimate,
                    exact: m.proven.exact(),
                    lower: m.proven.lower,
                    mv: name(m.mv),
                    upper: m.proven.upper,
                    value: m.proven.exact().then_some(m.proven.lower),
                })
                .collect(),
            nodes: e.nodes,
            position: format_state::<G>(st),
            time_ms: e.time_ms,
            upper: e.proven.upper,
            value: e.exact(),
        }
    }
}

fn proven_text(lower: i32, upper: i32) -> String {
    if lower == upper {
        format!("exact {lower:+}")
    } else {
        format!("proven [{lower:+}, {upper:+}]")
    }
}

impl fmt::Display for AnalyseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "position: {}", self.position)?;
        for i in &self.iterations {
            writeln!(
                f,
                "info depth {} estimate {:+.2} {} nodes {} time {} ms pv {}",
                i.depth,
                i.estimate,
                proven_text(i.lower, i.upper),
                i.nodes,
                i.time_ms,
                i.pv.join(" ")
            )?;
        }
        match self.value {
            Some(v) => writeln!(f, "value: {v:+} (proven exact by the search)")?,
            None => writeln!(
                f,
                "estimate: {:+.2} (an estimate, not a value; depth {}); {}",
                self.estimate,
                self.depth,
                proven_text(self.lower, self.upper)
            )?,
        }
        writeln!(f, "moves (best estimate first):")?;
        for m in &self.moves {
            let cap = if m.captured > 0 {
                format!("  (captures {})", m.captured)
            } else {
                String::new()
            };
            writeln!(
                f,
                "  {:>4}  estimate {:+7.2}  {}{cap}",
                m.mv,
                m.estimate,
                proven_text(m.lower, m.upper)
            )?;
        }
        writeln!(f, "nodes {}, {} ms", self.nodes, self.time_ms)
    }
}

impl fmt::Display for crate::selfplay::MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} games: engine B won {}, drew {}, lost {}; B scored {:.1} of {} points, mean margin {:+.2} seeds",
            self.games.len(),
            self.b_wins,
            self.draws,
            self.b_losses,
            self.b_points,
            self.games.len(),
            self.b_mean_margin
        )
    }
}

impl fmt::Display for crate::eval::Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.trained;
        writeln!(
            f,
            "{}: trained on {} positions of levels {}..={} ({} draw, seed {}), validated on {}: \
             mean |error| {:.3} (baseline split {:.3}), RMSE {:.3} (baseline {:.3})",
            self.game,
            t.train_positions,
            t.levels.0,
            t.levels.1,
            t.sampling.name(),
            t.seed,
            t.validation_positions,
            t.validation_mae,
            t.baseline_mae,
            t.validation_rmse,
            t.baseline_rmse
        )?;
        if t.excluded > 0 {
            writeln!(
                f,
                "  {} drawn positions left out (exclusion list)",
                t.excluded
            )?;
        }
        for b in &t.bands {
            writeln!(
                f,
                "  held out, levels {}..={}: {} positions, mean |error| {:.3} (baseline split {:.3})",
                b.levels.0, b.levels.1, b.positions, b.mae, b.baseline_mae
            )?;
        }
        Ok(())
    }
}

impl ReplayReport {
    /// `replay --json`: plays the moves `names` from `st`, every end rule
    /// applied literally.
    ///
    /// # Errors
    /// The command line's message for a bad or illegal move, or a move after
    /// the end of the game.
    pub fn play<G: Game>(st: State, names: &str) -> Result<Self, String> {
        let moves = parse_moves::<G>(&st, names)?;
        let rep = drive::<G>(st, &moves).map_err(replay_error::<G>)?;
        Ok(ReplayReport::new::<G>(&rep))
    }
}

/// Parses a line's moves one by one, each for the mover of its position; stops
/// after the first that cannot be played (the replay reports it).
fn parse_moves<G: Game>(st: &State, names: &str) -> Result<Vec<Move>, String> {
    let mut parsed = Vec::new();
    let mut cur = st.pos;
    for (i, name) in names.split_whitespace().enumerate() {
        let mv =
            parse_move::<G>(&cur, name).map_err(|e| format!("move {} ({name}): {e}", i + 1))?;
        parsed.push(mv);
        match G::try_play(&cur, mv) {
            Ok(p) => cur = p.pos,
            Err(_) => break,
        }
    }
    Ok(parsed)
}

/// The message of a replay that stopped early.
fn replay_error<G: Game>(e: ReplayError) -> String {
    match e {
        ReplayError::Illegal { index, err, state } => {
            let legal: Vec<String> = err
                .legal
                .iter()
                .map(|m| format_move::<G>(&state.pos, m))
                .collect();
            let legal = if legal.is_empty() {
                "none (the game is over)".to_string()
            } else {
                legal.join(" ")
            };
            format!(
                "move {} ({}) is illegal in {}; legal moves: {legal}",
                index + 1,
                format_move::<G>(&state.pos, err.mv),
                format_state::<G>(&state),
            )
        }
        ReplayError::GameOver { index, result } => format!(
            "move {} comes after the end of the game ({})",
            index + 1,
            ResultReport::new::<G>(&result)
        ),
    }
}
