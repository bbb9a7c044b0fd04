//! [`Facts`]: a rule set's game constants at run time (pits, seeds, the
//! names of pits and sides, whether it passes or opens), read from the
//! game type's own constants ([`Game`]), for front ends that number moves
//! as actions or check a board's length without naming a game type.

use crate::game::{Game, GameId};
use crate::rules::RuleSet;

/// The constants of a rule set's game, as its game type states them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The rule set.
    pub rules: RuleSet,
    /// Its game.
    pub game: GameId,
    /// Pits on the board (both rows).
    pub pits: usize,
    /// Seeds in play.
    pub total: u32,
    /// Seeds in each pit at the start.
    pub start_seeds: u8,
    /// Whether a player may pass.
    pub has_pass: bool,
    /// Whether the game has an opening phase.
    pub has_opening: bool,
    side_names: [char; 2],
}

impl Facts {
    /// The facts of `rules`'s game.
    pub fn of(rules: RuleSet) -> Facts {
        fn go<G: Game>() -> Facts {
            Facts {
                rules: G::RULES,
                game: G::ID,
                pits: G::PITS,
                total: G::TOTAL,
                start_seeds: G::START_SEEDS,
                has_pass: G::HAS_PASS,
                has_opening: G::HAS_OPENING,
                side_names: [G::side_name(0), G::side_name(1)],
            }
        }
        crate::with_rules!(rules, go())
    }

    /// Actions a move can be numbered by: one per absolute pit, and the
    /// pit count for a pass where the game has one.
    pub fn num_actions(&self) -> usize {
        self.pits + usize::from(self.has_pass)
    }

    /// The name of absolute pit `abs` (`1B`…, or `0`…), if the board has it.
    pub fn pit_name(&self, abs: usize) -> Option<String> {
        crate::with_rules!(self.rules, G => (abs < G::PITS).then(|| G::pit_name(abs)))
    }

    /// The move name of action `a`: absolute pit `a`, or `pass` for the
    /// pit count where the game passes; `None` beyond.
    pub fn action_name(&self, a: usize) -> Option<String> {
        match self.pit_name(a) {
            Some(name) => Some(name),
            None if self.has_pass && a == self.pits => Some("pass".to_string()),
            None => None,
        }
    }

    /// The name of absolute side `side` (0 or 1).
    pub fn side_name(&self, side: u8) -> char {
        self.side_names[usize::from(side & 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule set's facts are its game type's constants, and actions
    /// name every pit, then the pass where there is one.
    #[test]
    fn facts_are_the_game_types_constants() {
        for r in RuleSet::ALL {
            let f = Facts::of(r);
            assert_eq!((f.rules, f.game), (r, r.game()));
            let pits = crate::with_rules!(r, G => G::PITS);
            assert_eq!(f.pits, pits);
            let names: Vec<_> = (0..f.num_actions()).map(|a| f.action_name(a)).collect();
            assert!(names.iter().all(Option::is_some), "{r:?}");
            assert_eq!(names.last().unwrap().as_deref() == Some("pass"), f.has_pass);
            assert_eq!(f.action_name(f.num_actions()), None);
        }
    }
}
