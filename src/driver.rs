//! The game driver: plays a move list from a position and applies every end
//! rule literally along the real history (docs/RULES.md §2–§4, "Playing a game"):
//! the loop rule, Adjito's more-than-half end, and the final sweep.

use ahash::AHashSet;

use crate::game::{EndReason, Game, IllegalMove, Move, Position, State};

/// One step of a replay.
#[derive(Clone, Debug)]
pub struct ReplayStep {
    /// The move played.
    pub mv: Move,
    /// Its name, as the mover saw it.
    pub name: String,
    /// Seeds it captured.
    pub captured: u8,
    /// The state after it.
    pub after: State,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The rule that ended it.
    pub reason: EndReason,
    /// Final seeds (store plus own side), indexed by absolute side.
    pub score: [u32; 2],
    /// The winning absolute side, or `None` for a draw.
    pub winner: Option<u8>,
}

/// A replay: steps and, if the game ended, the result.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The state the replay started from.
    pub start: State,
    /// Each move played.
    pub steps: Vec<ReplayStep>,
    /// The result if the game ended (it may end before the last move only
    /// with an error).
    pub result: Option<GameResult>,
}

/// Why a replay stopped early.
#[derive(Clone, Debug)]
pub enum ReplayError {
    /// Move `index` (0-based) is illegal.
    Illegal {
        /// Index in the move list.
        index: usize,
        /// The illegal move and the legal ones.
        err: IllegalMove,
        /// The state it was tried in.
        state: State,
    },
    /// Move `index` was given after the game had ended.
    GameOver {
        /// Index in the move list.
        index: usize,
        /// How it ended.
        result: GameResult,
    },
}

/// The sweep: each player adds the seeds on their own side.
pub fn final_score<G: Game>(st: &State) -> [u32; 2] {
    let (own, opp) = G::rows(&st.pos);
    let s = st.pos.side as usize;
    let mut score = [st.stores[0] as u32, st.stores[1] as u32];
    score[s] += own;
    score[s ^ 1] += opp;
    score
}

fn result<G: Game>(st: &State, reason: EndReason) -> GameResult {
    let score = final_score::<G>(st);
    let winner = match score[0].cmp(&score[1]) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    GameResult {
        reason,
        score,
        winner,
    }
}

/// The positions of the current stretch (the moves since the last
/// capture): the loop rule of "Playing a game" (docs/RULES.md §4) ends
/// a game when one of them occurs a second time.
#[derive(Clone, Debug, Default)]
pub struct Stretch(AHashSet<Position>);

impl Stretch {
    /// A stretch beginning at `start` (its first occurrence).
    pub fn new(start: Position) -> Self {
        let mut s = Stretch::default();
        s.0.insert(start);
        s
    }

    /// Records `pos`, reached by a move that captured `captured` seeds (a
    /// capture begins a new stretch); true when `pos` occurred before in
    /// the stretch, which ends the game by the loop rule.
    pub fn repeats(&mut self, pos: Position, captured: u8) -> bool {
        if captured > 0 {
            self.0.clear();
        }
        !self.0.insert(pos)
    }
}

/// Drives one game from `start`, checking every end rule after each move.
#[derive(Clone, Debug)]
pub struct Driver<G: Game> {
    state: State,
    stretch: Stretch,
    result: Option<GameResult>,
    _g: std::marker::PhantomData<G>,
}

impl<G: Game> Driver<G> {
    /// Starts a game at `start` (which counts as the first occurrence of its position).
    pub fn new(start: State) -> Self {
        let mut d = Driver {
            state: start,
            stretch: Stretch::new(start.pos),
            result: None,
            _g: Default::default(),
        };
        d.result = d.check_end(false);
        d
    }

    /// The current state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    fn check_end(&self, repeated: bool) -> Option<GameResult> {
        let st = &self.state;
        let above = |limit: u16| st.stores.iter().any(|&s| s > limit);
        if G::RULES.early_end().is_some_and(above) {
            return Some(result::<G>(st, EndReason::MoreThanHalf));
        }
        if repeated {
            return Some(result::<G>(st, EndReason::Loop));
        }
        G::end_reason(&st.pos).map(|r| result::<G>(st, r))
    }

    /// Plays `mv`.
    ///
    /// # Errors
    /// [`IllegalMove`] when the move is not legal or the game is over (then
    /// the legal list is empty).
    pub fn play(&mut self, mv: Move) -> Result<(u8, Option<&GameResult>), IllegalMove> {
        if self.result.is_some() {
            return Err(IllegalMove {
                mv,
                legal: Default::default(),
            });
        }
        let p = G::try_play(&self.state.pos, mv)?;
        self.state.pos = p.pos;
        self.state.stores[(p.pos.side ^ 1) as usize] += p.captured as u16;
        let repeated = self.stretch.repeats(p.pos, p.captured);
        self.result = self.check_end(repeated);
        Ok((p.captured, self.result.as_ref()))
    }
}

/// Replays `moves` from `start`.
///
/// # Errors
/// [`ReplayError`] at the first illegal move or a move after the end.
pub fn replay<G: Game>(start: State, moves: &[Move]) -> Result<Replay, ReplayError> {
    let mut d = Driver::<G>::new(start);
    let mut steps = Vec::new();
    for (index, &mv) in moves.iter().enumerate() {
        if let Some(r) = d.result() {
            return Err(ReplayError::GameOver {
                index,
                result: r.clone(),
            });
        }
        let before = *d.state();
        let name = crate::notation::format_move::<G>(&before.pos, mv);
        let (captured, _) = d.play(mv).map_err(|err| ReplayError::Illegal {
            index,
            err,
            state: before,
        })?;
        steps.push(ReplayStep {
            mv,
            name,
            captured,
            after: *d.state(),
        });
    }
    Ok(Replay {
        start,
        steps,
        result: d.result().cloned(),
    })
}
