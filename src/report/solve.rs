//! The report of `solve`.

use std::fmt;

use serde::Serialize;

use super::{RulesTag, Sides};
use crate::game::{Game, Position, State};
use crate::notation::{format_line, format_move, format_state};
use crate::search::{Analysis, Profile, PvEnd};
use crate::value::Range;

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
    /// Whether a line reached the longest path the search follows and so
    /// stopped it (the bounds are those proved until then); left out of
    /// the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ply_cap: bool,
    /// The longest path the search follows, in plies (for the text).
    #[serde(skip)]
    pub max_ply: usize,
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
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesTag>,
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
    /// Where the nodes went, per ply (`solve --profile`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
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
            game_over: G::end_reason(pos).map(|r| r.describe_under(G::RULES)),
            loop_sensitive: a.loop_sensitive(),
            ply_cap: stats.ply_cap,
            max_ply: stats.max_ply,
            lower: a.value.lower,
            moves: a.moves.iter().map(|m| solve_move::<G>(pos, m)).collect(),
            nodes: stats.nodes,
            nps: nps.round() as u64,
            position: format_state::<G>(st),
            pv: format_line::<G>(pos, &a.pv),
            pv_end: a.pv_end,
            rules: RulesTag::of::<G>(),
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
            profile: a.profile.clone(),
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
        RulesTag::header(&self.rules, f)?;
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
                writeln!(f, "projected final score: {}", s.text())?;
            }
            FinalScore::Between { lower, upper } => {
                let why = if self.ply_cap {
                    format!(
                        "a line reached {} plies, the longest path the search follows, and stopped it",
                        self.max_ply
                    )
                } else {
                    "a limit stopped the search".to_string()
                };
                writeln!(
                    f,
                    "value: unresolved; lower bound {lo:+}, upper bound {hi:+} ({why})"
                )?;
                writeln!(
                    f,
                    "projected final score between {} and {}",
                    lower.text(),
                    upper.text()
                )?;
            }
        }
        writeln!(f, "result for the mover: {}", self.wdl)?;
        self.fmt_moves(f)?;
        match &self.profile {
            Some(p) => fmt_profile(p, f),
            None => Ok(()),
        }
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

/// The per-ply table of `solve --profile`: plies with nodes, then the total.
fn fmt_profile(p: &Profile, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let t = p.total();
    writeln!(
        f,
        "profile: {} nodes, {} of them until the value was known",
        t.nodes, p.value_nodes
    )?;
    writeln!(
        f,
        "| ply | nodes | hash probes | hits | hash cuts | table lookups | hits | expanded | cutoffs | first move | ETC | children settled in the parent | stores | overwrites |"
    )?;
    writeln!(f, "|{}", "---:|".repeat(14))?;
    let last = crate::search::PLIES - 1;
    let rows = p.plies.iter().enumerate().filter(|(_, c)| c.nodes > 0);
    for (i, c) in rows.chain(std::iter::once((usize::MAX, &t))) {
        let ply = match i {
            usize::MAX => "all".to_string(),
            i if i == last => format!("{i}+"),
            i => i.to_string(),
        };
        writeln!(
            f,
            "| {ply} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.nodes,
            c.tt_probes,
            c.tt_hits,
            c.tt_cuts,
            c.table_probes,
            c.table_hits,
            c.expanded,
            c.cuts,
            c.first_cuts,
            c.etc_cuts,
            c.known_children,
            c.stores,
            c.overwrites
        )?;
    }
    Ok(())
}
