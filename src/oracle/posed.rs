//! [`Posed`]: a position with the rule set it was read under, and every
//! question a front end asks of one position at run time (its notation
//! and diagram, its moves, a move played, how the game ended, the
//! `moves`, `perft` and `replay` reports), as shakmaty's
//! `VariantPosition` answers for a chess variant chosen at run time.
//!
//! Each answer turns the rule set into its game type here
//! ([`crate::with_rules!`]), so that a front end holds a `Posed` and never
//! names a game type; a new rule set or game needs no change here.

use std::sync::atomic::AtomicBool;

use crate::game::{EndReason, Game, IllegalMove, Move, State};
use crate::notation::{format_move, format_state, parse_move, parse_state, NotationError, Stores};
use crate::perft::Stopped;
use crate::report::{MovesReport, PerftReport, ReplayFailure, ReplayReport, RulesTag};
use crate::rules::RuleSet;

/// A position and the rule set it was read under: a pair a front end
/// cannot split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Posed {
    pub(super) rules: RuleSet,
    pub(super) state: State,
}

impl Posed {
    /// Reads `text` (docs/RULES.md §3 notation, or `start`) under `rules`.
    ///
    /// # Errors
    /// What the notation's parser says is wrong with `text`.
    pub fn parse(rules: RuleSet, text: &str, stores: Stores) -> Result<Posed, NotationError> {
        let state = crate::with_rules!(rules, G => parse_state::<G>(text, stores))?;
        Ok(Posed { rules, state })
    }

    /// The start of the game under `rules`, nothing captured.
    pub fn start(rules: RuleSet) -> Posed {
        let pos = crate::with_rules!(rules, G => G::start());
        Posed {
            rules,
            state: State {
                pos,
                stores: [0, 0],
            },
        }
    }

    /// `state` under `rules`, checked to be a position of that game: it
    /// must read back as itself from its notation (docs/RULES.md §3).
    ///
    /// # Errors
    /// The notation's complaint about the state's text under `rules`, or
    /// that it reads back as another state.
    pub fn new(rules: RuleSet, state: State) -> Result<Posed, NotationError> {
        fn check<G: Game>(st: &State) -> Result<(), NotationError> {
            let text = format_state::<G>(st);
            match parse_state::<G>(&text, Stores::Required)? {
                back if back == *st => Ok(()),
                _ => Err(NotationError {
                    field: "position",
                    message: format!("'{text}' is not a position of {}", G::RULES.name()),
                }),
            }
        }
        crate::with_rules!(rules, check(&state))?;
        Ok(Posed { rules, state })
    }

    /// `state`, a position of game type `G`, under `G`'s rule set.
    pub fn of<G: Game>(state: State) -> Posed {
        Posed {
            rules: G::RULES,
            state,
        }
    }

    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// The position and the stores.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Its notation (docs/RULES.md §3).
    pub fn notation(&self) -> String {
        crate::with_rules!(self.rules, G => format_state::<G>(&self.state))
    }

    /// The board diagram of `adji show`.
    pub fn diagram(&self) -> String {
        crate::with_rules!(self.rules, G => crate::display::diagram::<G>(&self.state))
    }

    /// The mover's name: `B`/`A` (Adjito) or `0`/`1` (Adji-Boto).
    pub fn mover(&self) -> char {
        crate::with_rules!(self.rules, G => G::side_name(self.state.pos.side))
    }

    /// Seeds per pit in absolute sowing order (pit 0 is `1B` or `0`).
    pub fn absolute_pits(&self) -> Vec<u8> {
        crate::with_rules!(self.rules, G => G::to_absolute(&self.state.pos)[..G::PITS].to_vec())
    }

    /// Seeds per pit relative to the mover, the mover's row first in
    /// sowing order (the form the endgame tables are indexed by).
    pub fn relative_pits(&self) -> Vec<u8> {
        let pits = crate::with_rules!(self.rules, G => G::PITS);
        self.state.pos.pits[..pits].to_vec()
    }

    /// The phase field (`main` or `opening:…`) of a game with an opening;
    /// `None` for a game without one.
    pub fn phase(&self) -> Option<String> {
        crate::with_rules!(self.rules, G => G::HAS_OPENING
            .then(|| crate::notation::format_phase::<G>(&self.state.pos)))
    }

    /// The legal moves, in generation order.
    pub fn legal_moves(&self) -> Vec<Move> {
        crate::with_rules!(self.rules, G => G::legal_moves(&self.state.pos).iter().collect())
    }

    /// The legal moves' names, in generation order.
    pub fn move_names(&self) -> Vec<String> {
        crate::with_rules!(self.rules, G => G::legal_moves(&self.state.pos)
            .iter()
            .map(|m| format_move::<G>(&self.state.pos, m))
            .collect())
    }

    /// The move named `name` for the mover (docs/RULES.md §3), legal or
    /// not.
    ///
    /// # Errors
    /// What the notation's parser says is wrong with `name`.
    pub fn parse_move(&self, name: &str) -> Result<Move, NotationError> {
        crate::with_rules!(self.rules, G => parse_move::<G>(&self.state.pos, name))
    }

    /// The name of move `m` for the mover.
    pub fn move_name(&self, m: Move) -> String {
        crate::with_rules!(self.rules, G => format_move::<G>(&self.state.pos, m))
    }

    /// The action number of move `m`: its absolute pit (0 is `1B` or `0`),
    /// or the pit count for a pass.
    pub fn action_of(&self, m: Move) -> usize {
        crate::with_rules!(self.rules, G => match m.is_pass() {
            true => G::PITS,
            false => G::abs_pit(&self.state.pos, m.pit()),
        })
    }

    /// Plays `m`, crediting a capture to the mover's store: the position
    /// after it and the seeds captured.
    ///
    /// # Errors
    /// [`IllegalMove`] when `m` is not legal here (the legal list is empty
    /// when the game is over).
    pub fn play(&self, m: Move) -> Result<(Posed, u8), IllegalMove> {
        fn go<G: Game>(st: &State, m: Move) -> Result<(State, u8), IllegalMove> {
            let legal = G::legal_moves(&st.pos);
            match legal.contains(m) {
                true => Ok(st.play::<G>(m)),
                false => Err(IllegalMove { mv: m, legal }),
            }
        }
        let (state, captured) = crate::with_rules!(self.rules, go(&self.state, m))?;
        Ok((
            Posed {
                rules: self.rules,
                state,
            },
            captured,
        ))
    }

    /// Why the game is over here by the position alone (no legal move):
    /// `None` while a move is legal. The loop rule and Adjito's early end
    /// need the history: see [`super::Playing`].
    pub fn end_reason(&self) -> Option<EndReason> {
        crate::with_rules!(self.rules, G => G::end_reason(&self.state.pos)
            .filter(|_| G::legal_moves(&self.state.pos).is_empty()))
    }

    /// Final seeds by absolute side if the game ended here (stores plus
    /// each player's own row).
    pub fn final_score(&self) -> [u32; 2] {
        crate::with_rules!(self.rules, G => crate::driver::final_score::<G>(&self.state))
    }

    /// `adji moves`: every legal move with the position after it and the
    /// seeds captured, or how the game ended.
    pub fn moves_report(&self) -> MovesReport {
        crate::with_rules!(self.rules, G => MovesReport::new::<G>(&self.state))
    }

    /// `adji perft`: move sequences of exactly `depth` moves (docs/RULES.md
    /// §6), with the count after each first move when `divide`.
    pub fn perft_report(&self, depth: u32, divide: bool) -> PerftReport {
        crate::with_rules!(self.rules, G => PerftReport::new::<G>(&self.state.pos, depth, divide))
    }

    /// [`Posed::perft_report`] with the count after each first move, that
    /// a raised `stop` interrupts (checked between subtrees of a few
    /// thousand nodes).
    ///
    /// # Errors
    /// [`Stopped`] once `stop` is raised.
    pub fn perft_stoppable(&self, depth: u32, stop: &AtomicBool) -> Result<PerftReport, Stopped> {
        fn go<G: Game>(st: &State, depth: u32, stop: &AtomicBool) -> Result<PerftReport, Stopped> {
            let divide = crate::perft::divide_stoppable::<G>(&st.pos, depth, stop)?;
            let nodes = if depth == 0 {
                1
            } else {
                divide.iter().map(|x| x.1).sum()
            };
            Ok(PerftReport {
                divide: Some(
                    divide
                        .into_iter()
                        .map(|(m, n)| (format_move::<G>(&st.pos, m), n))
                        .collect(),
                ),
                nodes,
                rules: RulesTag::of::<G>(),
            })
        }
        crate::with_rules!(self.rules, go(&self.state, depth, stop))
    }

    /// `adji replay`: plays `line` (space-separated move names) from here,
    /// applying every end rule.
    ///
    /// # Errors
    /// The game up to the move that could not be played, and the command
    /// line's message.
    pub fn replay(&self, line: &str) -> Result<ReplayReport, ReplayFailure> {
        crate::with_rules!(self.rules, G => ReplayReport::play_partial::<G>(self.state, line))
    }
}
