//! [`Playing`]: a game in play under a rule set chosen at run time, every
//! end rule applied along its history as `adji replay` applies them (the
//! loop rule, Adjito's early end, the final sweep: docs/RULES.md §2–§4).
//!
//! It boxes the library's [`Driver`] of the rule set's game type behind
//! one small trait, implemented once for every game type, so that no
//! front end matches over the rule sets to keep a game going.

use crate::driver::{Driver, GameResult};
use crate::game::{Game, IllegalMove, Move, State};
use crate::report::ResultReport;
use crate::rules::RuleSet;

use super::posed::Posed;

/// What a [`Playing`] asks of a [`Driver`] of any game type.
trait AnyDriver: Send + Sync {
    fn state(&self) -> &State;
    fn result(&self) -> Option<&GameResult>;
    fn result_report(&self) -> Option<ResultReport>;
    fn play(&mut self, m: Move) -> Result<u8, IllegalMove>;
    fn boxed(&self) -> Box<dyn AnyDriver>;
}

impl<G: Game> AnyDriver for Driver<G> {
    fn state(&self) -> &State {
        Driver::state(self)
    }

    fn result(&self) -> Option<&GameResult> {
        Driver::result(self)
    }

    fn result_report(&self) -> Option<ResultReport> {
        Driver::result(self).map(ResultReport::new::<G>)
    }

    fn play(&mut self, m: Move) -> Result<u8, IllegalMove> {
        Driver::play(self, m).map(|(c, _)| c)
    }

    fn boxed(&self) -> Box<dyn AnyDriver> {
        Box::new(self.clone())
    }
}

/// A game in play from a start position, with the moves played so far.
pub struct Playing {
    start: Posed,
    driver: Box<dyn AnyDriver>,
    history: Vec<String>,
}

impl Clone for Playing {
    fn clone(&self) -> Self {
        Playing {
            start: self.start,
            driver: self.driver.boxed(),
            history: self.history.clone(),
        }
    }
}

impl std::fmt::Debug for Playing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Playing")
            .field("start", &self.start)
            .field("history", &self.history)
            .finish()
    }
}

impl Playing {
    /// A game from `start` (which counts as the first occurrence of its
    /// position for the loop rule).
    pub fn new(start: Posed) -> Playing {
        fn driver<G: Game>(st: State) -> Box<dyn AnyDriver> {
            Box::new(Driver::<G>::new(st))
        }
        Playing {
            start,
            driver: crate::with_rules!(start.rules, driver(start.state)),
            history: Vec::new(),
        }
    }

    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.start.rules
    }

    /// The start position.
    pub fn start(&self) -> Posed {
        self.start
    }

    /// The current position.
    pub fn position(&self) -> Posed {
        Posed {
            rules: self.start.rules,
            state: *self.driver.state(),
        }
    }

    /// The moves played, by name.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// How the game ended, once it has.
    pub fn result(&self) -> Option<&GameResult> {
        self.driver.result()
    }

    /// The result as `adji replay --json` reports it, once the game ended.
    pub fn result_report(&self) -> Option<ResultReport> {
        self.driver.result_report()
    }

    /// The legal moves' names: none once the game is over.
    pub fn move_names(&self) -> Vec<String> {
        match self.result() {
            Some(_) => Vec::new(),
            None => self.position().move_names(),
        }
    }

    /// Plays the move named `name`; the seeds it captured.
    ///
    /// # Errors
    /// `adji replay`'s message for a move that cannot be played here
    /// (unknown, illegal, or after the end); the game is unchanged.
    pub fn play_name(&mut self, name: &str) -> Result<u8, String> {
        let here = self.position();
        let played = here
            .parse_move(name)
            .ok()
            .and_then(|m| Some((here.move_name(m), self.driver.play(m).ok()?)));
        match played {
            Some((canonical, captured)) => {
                self.history.push(canonical);
                Ok(captured)
            }
            None => Err(self.replay_error(name)),
        }
    }

    /// `adji replay`'s message for playing `name` after this history.
    fn replay_error(&self, name: &str) -> String {
        let mut line = self.history.join(" ");
        line.push(' ');
        line.push_str(name);
        match self.start.replay(&line) {
            Err(fail) => fail.error,
            Ok(_) => format!("move {name} cannot be played"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::Stores;

    /// A game played through `Playing` ends as `adji replay` ends the same
    /// moves, and an illegal move gives replay's message and changes
    /// nothing.
    #[test]
    fn playing_agrees_with_replay() {
        for r in RuleSet::ALL {
            let start = Posed::start(r);
            let mut g = Playing::new(start);
            for _ in 0..400 {
                let Some(last) = g.move_names().pop() else {
                    break;
                };
                g.play_name(&last).unwrap();
            }
            let replay = start.replay(&g.history().join(" ")).unwrap();
            assert_eq!(
                serde_json::to_value(g.result_report()).unwrap(),
                serde_json::to_value(replay.result).unwrap()
            );
            assert_eq!(
                g.position().notation(),
                replay
                    .steps
                    .last()
                    .map_or(start.notation(), |s| s.position.clone())
            );
            let before = g.history().len();
            let err = g.play_name("nonsense").unwrap_err();
            assert!(!err.is_empty());
            assert_eq!(g.history().len(), before);
            let p = Posed::parse(r, &start.notation(), Stores::Required).unwrap();
            assert_eq!(p, start);
        }
    }
}
