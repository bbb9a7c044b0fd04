//! The report of `analyse`.

use std::fmt;

use serde::Serialize;

use super::RulesTag;
use crate::game::{Game, State};
use crate::notation::{format_line, format_move, format_state};

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
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesTag>,
    /// Milliseconds.
    pub time_ms: u64,
    /// Proven upper bound of the value.
    pub upper: i32,
    /// The value, only when proven exact.
    pub value: Option<i32>,
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
                    pv: format_line::<G>(&st.pos, &i.pv),
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
            rules: RulesTag::of::<G>(),
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
        RulesTag::header(&self.rules, f)?;
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
