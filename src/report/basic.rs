//! The reports of `moves`, `perft` and `replay`.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Serialize, Serializer};

use super::{RulesTag, Sides};
use crate::driver::{final_score, replay as drive, GameResult, Replay, ReplayError};
use crate::game::{EndReason, Game, Move, MoveList, Position, State};
use crate::notation::{format_move, format_state, parse_move, NotationError};

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
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesTag>,
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
                description: reason.describe_under(G::RULES),
                reason,
                split: Sides::new::<G>(final_score::<G>(st)),
            }),
            moves,
            position: format_state::<G>(st),
            rules: RulesTag::of::<G>(),
        }
    }
}

impl fmt::Display for MovesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RulesTag::header(&self.rules, f)?;
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
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesTag>,
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
            rules: RulesTag::of::<G>(),
        }
    }
}

impl fmt::Display for PerftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RulesTag::header(&self.rules, f)?;
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
            description: r.reason.describe_under(G::RULES),
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
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesTag>,
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
            rules: RulesTag::of::<G>(),
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

impl ReplayReport {
    /// The starting position and one line per move played.
    fn fmt_steps(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RulesTag::header(&self.rules, f)?;
        writeln!(f, "      {}", self.start)?;
        for (i, s) in self.steps.iter().enumerate() {
            write!(f, "{:>3}. {:>4}  {}", i + 1, s.mv, s.position)?;
            if s.captured > 0 {
                write!(f, "  (captures {})", s.captured)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_steps(f)?;
        match &self.result {
            Some(r) => writeln!(f, "{r}"),
            None => writeln!(f, "game continues"),
        }
    }
}

/// A replay stopped by a move that cannot be played: the game up to it and
/// the message naming the move, the position and the legal moves.
#[derive(Clone, Debug)]
pub struct ReplayFailure {
    /// The game up to the move that could not be played.
    pub partial: ReplayReport,
    /// The command line's message.
    pub error: String,
}

impl fmt::Display for ReplayFailure {
    /// The game up to the bad move, as `replay` shows a game (with the
    /// result when it was over), without the error itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.partial.fmt_steps(f)?;
        match &self.partial.result {
            Some(r) => writeln!(f, "{r}"),
            None => Ok(()),
        }
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
        Self::play_partial::<G>(st, names).map_err(|e| e.error)
    }

    /// [`ReplayReport::play`], with the game up to a move that cannot be
    /// played.
    ///
    /// # Errors
    /// A [`ReplayFailure`] at a malformed move, a pit of the wrong side, an
    /// illegal move, or a move after the end of the game.
    pub fn play_partial<G: Game>(st: State, names: &str) -> Result<Self, ReplayFailure> {
        let (moves, bad) = parse_moves::<G>(&st, names);
        let fail = |played: &[Move], error| ReplayFailure {
            partial: ReplayReport::new::<G>(&played_prefix::<G>(st, played)),
            error,
        };
        let rep = match drive::<G>(st, &moves) {
            Ok(rep) => rep,
            Err(e) => {
                let index = match &e {
                    ReplayError::Illegal { index, .. } | ReplayError::GameOver { index, .. } => {
                        *index
                    }
                };
                return Err(fail(&moves[..index], replay_error::<G>(e)));
            }
        };
        let Some(bad) = bad else {
            return Ok(ReplayReport::new::<G>(&rep));
        };
        let error = match &rep.result {
            Some(result) => replay_error::<G>(ReplayError::GameOver {
                index: bad.index,
                result: result.clone(),
            }),
            None => bad.message::<G>(&rep.steps.last().map_or(st, |s| s.after)),
        };
        Err(fail(&moves, error))
    }
}

/// The replay of moves already known to be playable.
fn played_prefix<G: Game>(st: State, moves: &[Move]) -> Replay {
    drive::<G>(st, moves).unwrap_or_else(|_| Replay {
        start: st,
        steps: Vec::new(),
        result: None,
    })
}

/// A move name that does not parse for the mover of its position.
struct BadName<'a> {
    /// Index in the move list.
    index: usize,
    /// The name.
    name: &'a str,
    /// Why.
    err: NotationError,
}

impl BadName<'_> {
    /// The message for this name in `state`: what is wrong and the legal moves.
    fn message<G: Game>(&self, state: &State) -> String {
        format!(
            "move {} ({}) is illegal in {}: {}; legal moves: {}",
            self.index + 1,
            super::quote(self.name, self.name.len() as u64),
            format_state::<G>(state),
            self.err.message,
            legal_text::<G>(&state.pos, &G::legal_moves(&state.pos)),
        )
    }
}

/// Parses a line's moves one by one, each for the mover of its position;
/// stops after the first that cannot be played (the replay reports it) or
/// at the first name that does not parse.
fn parse_moves<'a, G: Game>(st: &State, names: &'a str) -> (Vec<Move>, Option<BadName<'a>>) {
    let mut parsed = Vec::new();
    let mut cur = st.pos;
    for (index, name) in names.split_whitespace().enumerate() {
        let mv = match parse_move::<G>(&cur, name) {
            Ok(mv) => mv,
            Err(err) => return (parsed, Some(BadName { index, name, err })),
        };
        parsed.push(mv);
        match G::try_play(&cur, mv) {
            Ok(p) => cur = p.pos,
            Err(_) => break,
        }
    }
    (parsed, None)
}

/// The legal moves `legal` of `pos`, named, or "none (the game is over)".
fn legal_text<G: Game>(pos: &Position, legal: &MoveList) -> String {
    if legal.is_empty() {
        return "none (the game is over)".to_string();
    }
    let names: Vec<String> = legal.iter().map(|m| format_move::<G>(pos, m)).collect();
    names.join(" ")
}

/// The message of a replay that stopped early.
fn replay_error<G: Game>(e: ReplayError) -> String {
    match e {
        ReplayError::Illegal { index, err, state } => format!(
            "move {} ({}) is illegal in {}; legal moves: {}",
            index + 1,
            format_move::<G>(&state.pos, err.mv),
            format_state::<G>(&state),
            legal_text::<G>(&state.pos, &err.legal),
        ),
        ReplayError::GameOver { index, result } => format!(
            "move {} comes after the end of the game ({})",
            index + 1,
            ResultReport::new::<G>(&result)
        ),
    }
}
