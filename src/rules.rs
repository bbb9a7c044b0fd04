//! The rule sets: every reading of the two games that adji solves, each
//! with its name, its source, how it differs from the game's default
//! reading, and the knobs that the game's rule functions read.
//!
//! A [`RuleSet`] is a run-time value (a command line's `--rules NAME`, a
//! table header's byte, a checkpoint's field). Each game type carries one
//! as [`Game::RULES`](crate::game::Game::RULES), so the rules are constants
//! wherever the code is monomorphised: a knob read in a hot path costs
//! nothing, and each reading gets its own copy of the fast paths.
//! [`with_rules!`](crate::with_rules) (in [`crate::dispatch`]) turns the
//! run-time value into the game type.
//!
//! The rules themselves live in [`crate::adjito`] and [`crate::adjiboto`],
//! one function per rule; this module only says which games there are
//! ([`GameId`]) and which reading each rule set takes. It sits at the
//! bottom of the library and imports nothing from it.

use std::fmt;

/// Which game a value, file or command refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum GameId {
    /// Adjito (Benin), 2×6 pits, 48 seeds.
    Adjito,
    /// Adji-Boto (Saramaka), 2×5 pits, 100 seeds.
    AdjiBoto,
}

impl GameId {
    /// Every game, in the order of their codes.
    pub const ALL: [GameId; 2] = [GameId::Adjito, GameId::AdjiBoto];

    /// The name used on the command line and in files.
    pub const fn name(self) -> &'static str {
        match self {
            GameId::Adjito => "adjito",
            GameId::AdjiBoto => "adjiboto",
        }
    }

    /// The byte that identifies the game in table headers.
    pub const fn code(self) -> u8 {
        match self {
            GameId::Adjito => 1,
            GameId::AdjiBoto => 2,
        }
    }

    /// Its name in prose, with where it is played (`Adjito (Benin)`).
    pub const fn title(self) -> &'static str {
        match self {
            GameId::Adjito => "Adjito (Benin)",
            GameId::AdjiBoto => "Adji-Boto (Saramaka)",
        }
    }

    /// The most seeds `adji loop-gap` takes: the reference solver keeps
    /// every board of every level in memory (Adjito's levels 0..=12 hold
    /// 2.7 million, Adji-Boto's 0..=18 13 million), and on Adjito the
    /// literal search is far beyond any budget above 12.
    pub const fn loop_gap_reach(self) -> u32 {
        match self {
            GameId::Adjito => 12,
            GameId::AdjiBoto => 18,
        }
    }

    /// Inverse of [`GameId::code`].
    pub const fn from_code(code: u8) -> Option<GameId> {
        match code {
            1 => Some(GameId::Adjito),
            2 => Some(GameId::AdjiBoto),
            _ => None,
        }
    }
}

/// A name that is no game's ([`GameId`]'s `FromStr`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {}, found '{found}'", GameId::ALL.map(GameId::name).join(" or "))]
pub struct UnknownGame {
    /// What was given (its first 40 characters).
    pub found: String,
}

impl std::str::FromStr for GameId {
    type Err = UnknownGame;

    /// A game by its name ([`GameId::name`]), in any case, hyphens and
    /// surrounding spaces ignored (`Adji-Boto` is `adjiboto`): the one
    /// parser of game names for every front end.
    fn from_str(s: &str) -> Result<GameId, UnknownGame> {
        let key: String = s.trim().to_ascii_lowercase().replace('-', "");
        GameId::ALL
            .into_iter()
            .find(|g| g.name() == key)
            .ok_or_else(|| UnknownGame {
                found: s.chars().take(40).collect(),
            })
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One reading of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// Adjito as docs/RULES.md reads the seed texts.
    AdjitoDefault,
    /// Adjito where every move must reach the opponent's row when one can.
    AdjitoMustReach,
    /// Adjito where a move that would capture everything is forbidden unless
    /// every move would.
    AdjitoSlamForbidden,
    /// Adji-Boto as docs/RULES.md reads Mancala World.
    AdjiBotoDefault,
    /// Adji-Boto as Valdez (2023) and the MancalaGames program play it.
    AdjiBotoValdez,
}

/// Adjito's must-reach sentence: when must a move reach the opponent's row?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Only when the opponent's row is empty (the feeding rule).
    WhenEmpty,
    /// Whenever some move of the mover can.
    Always,
}

/// Adjito: a capture that would leave the opponent no seeds (a grand slam).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slam {
    /// The move is played without the capture.
    PlayedWithoutCapture,
    /// The move is illegal unless every legal move is one; then it is
    /// played, capture included.
    ForbiddenUnlessForced,
}

/// Where a rule set is listed by [`RuleSet::parse`] errors and `adji rules`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule set '{name}' for {game}: expected one of {}", names(*.game))]
pub struct UnknownRules {
    /// The game.
    pub game: GameId,
    /// The name asked for (quoted to 40 characters).
    pub name: String,
}

fn names(game: GameId) -> String {
    RuleSet::of(game)
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl RuleSet {
    /// Every rule set, each game's default first.
    pub const ALL: [RuleSet; 5] = [
        RuleSet::AdjitoDefault,
        RuleSet::AdjitoMustReach,
        RuleSet::AdjitoSlamForbidden,
        RuleSet::AdjiBotoDefault,
        RuleSet::AdjiBotoValdez,
    ];

    /// The game it is a reading of.
    pub const fn game(self) -> GameId {
        match self {
            RuleSet::AdjitoDefault | RuleSet::AdjitoMustReach | RuleSet::AdjitoSlamForbidden => {
                GameId::Adjito
            }
            RuleSet::AdjiBotoDefault | RuleSet::AdjiBotoValdez => GameId::AdjiBoto,
        }
    }

    /// The game's default reading (docs/RULES.md §2 and §3).
    pub const fn default_for(game: GameId) -> RuleSet {
        match game {
            GameId::Adjito => RuleSet::AdjitoDefault,
            GameId::AdjiBoto => RuleSet::AdjiBotoDefault,
        }
    }

    /// Whether this is its game's default reading.
    pub const fn is_default(self) -> bool {
        matches!(self, RuleSet::AdjitoDefault | RuleSet::AdjiBotoDefault)
    }

    /// The rule sets of `game`, its default first.
    pub fn of(game: GameId) -> impl Iterator<Item = RuleSet> {
        RuleSet::ALL.into_iter().filter(move |r| r.game() == game)
    }

    /// The name on the command line, in files and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::AdjitoDefault | RuleSet::AdjiBotoDefault => "default",
            RuleSet::AdjitoMustReach => "must-reach",
            RuleSet::AdjitoSlamForbidden => "slam-forbidden",
            RuleSet::AdjiBotoValdez => "valdez",
        }
    }

    /// The rule set of `game` named `name`.
    ///
    /// # Errors
    /// [`UnknownRules`], listing the game's rule sets.
    pub fn parse(game: GameId, name: &str) -> Result<RuleSet, UnknownRules> {
        RuleSet::of(game)
            .find(|r| r.name() == name)
            .ok_or_else(|| UnknownRules {
                game,
                name: name.chars().take(40).collect(),
            })
    }

    /// The byte that records it in table headers and checkpoints: 0 for
    /// each game's default, so that files made before rule sets existed
    /// are the default's.
    pub const fn code(self) -> u8 {
        match self {
            RuleSet::AdjitoDefault | RuleSet::AdjiBotoDefault => 0,
            RuleSet::AdjitoMustReach | RuleSet::AdjiBotoValdez => 1,
            RuleSet::AdjitoSlamForbidden => 2,
        }
    }

    /// Inverse of [`RuleSet::code`].
    pub fn from_code(game: GameId, code: u8) -> Option<RuleSet> {
        RuleSet::of(game).find(|r| r.code() == code)
    }

    /// The rule set whose endgame tables this one reads and writes: itself,
    /// unless its positions after the opening play and score exactly as
    /// another's (Valdez's reading differs from the default only in the
    /// opening and in the early end, which values score by full play, the
    /// docs/RULES.md).
    pub const fn tables(self) -> RuleSet {
        match self {
            RuleSet::AdjiBotoValdez => RuleSet::AdjiBotoDefault,
            r => r,
        }
    }

    /// The rule sets with tables of their own (each [`RuleSet::tables`]
    /// family once).
    pub fn families() -> impl Iterator<Item = RuleSet> {
        RuleSet::ALL.into_iter().filter(|r| r.tables() == *r)
    }

    /// `NAME-` for a path that names the rule set, empty for the defaults
    /// (so that their files and directories keep the names they had).
    pub fn tag(self) -> String {
        if self.is_default() {
            String::new()
        } else {
            format!("{}-", self.name())
        }
    }

    /// The part of table file names that names the rule set: the
    /// [`RuleSet::tag`] of its tables.
    pub fn file_tag(self) -> String {
        self.tables().tag()
    }

    /// The rule set as the command line names it: the game, with
    /// `--rules NAME` unless it is the default (`adjito --rules must-reach`).
    pub fn command_line(self) -> String {
        if self.is_default() {
            self.game().to_string()
        } else {
            format!("{} --rules {}", self.game(), self.name())
        }
    }

    /// Where the reading comes from.
    pub const fn source(self) -> &'static str {
        match self {
            RuleSet::AdjitoDefault => {
                "The seed texts (Catalan and Spanish rule pages for Adjito of Benin), \
                 with the readings of docs/RULES.md: feeding only when the \
                 opponent's row is empty; a capture of everything is played without the capture"
            }
            RuleSet::AdjitoMustReach => {
                "The seed texts' sentence \"players may not play a pit without enough seeds \
                 to reach the opponent's row, unless no other pit allows it\" read alone, as a \
                 general rule"
            }
            RuleSet::AdjitoSlamForbidden => {
                "Computer Awari's convention for a capture of everything, as the Awari \
                 database of Romein and Bal (2002) states it: \"it is not allowed to remove all \
                 stones of the opponent (leaving it no move), unless it is the only move \
                 available\"; the forced move captures"
            }
            RuleSet::AdjiBotoDefault => {
                "Mancala World, Adji-boto (the seed text), with the readings of \
                 docs/RULES.md"
            }
            RuleSet::AdjiBotoValdez => {
                "Valdez, 50 Ways to Play Mancala (2023), p. 61, as the open-source MancalaGames \
                 program plays it, but for one capture: a chain that comes all the way round \
                 stops at the pit of the last seed, as its rule text says, where the program \
                 takes that pit too (docs/RULES.md, section 7.3)"
            }
        }
    }

    /// Each way it differs from its game's default reading (none for a
    /// default).
    pub const fn differences(self) -> &'static [&'static str] {
        match self {
            RuleSet::AdjitoDefault | RuleSet::AdjiBotoDefault => &[],
            RuleSet::AdjitoMustReach => &[
                "a move must reach the opponent's row whenever some move of the mover can, \
                 not only when that row is empty; when none can, any non-empty pit may be \
                 played (and with the opponent's row empty the game ends, as by default)",
            ],
            RuleSet::AdjitoSlamForbidden => &[
                "a move whose capture would leave the opponent no seeds is illegal unless every \
                 legal move is such a move; then it is played and the capture is made",
            ],
            RuleSet::AdjiBotoValdez => &[
                "captures are barred only on each player's first move (the first two moves of \
                 the game), not for the whole ten-move opening; each pit is still played once \
                 in the first ten moves",
                "the game ends as soon as a store holds more than 50 seeds, and the seeds left \
                 on the board go to their owners (values and tables score full play, which \
                 changes no win, draw or loss)",
            ],
        }
    }

    /// Adjito's must-reach reading.
    pub const fn reach(self) -> Reach {
        match self {
            RuleSet::AdjitoMustReach => Reach::Always,
            _ => Reach::WhenEmpty,
        }
    }

    /// Adjito's capture-of-everything reading.
    pub const fn slam(self) -> Slam {
        match self {
            RuleSet::AdjitoSlamForbidden => Slam::ForbiddenUnlessForced,
            _ => Slam::PlayedWithoutCapture,
        }
    }

    /// Adji-Boto: how many moves at the start of the game make no capture
    /// (the whole ten-move opening by default, each player's first move for
    /// Valdez).
    pub const fn capture_free_moves(self) -> u32 {
        match self {
            RuleSet::AdjiBotoValdez => 2,
            _ => 10,
        }
    }

    /// The early end, if any: the game stops once a store holds more than
    /// this many seeds, and the seeds on the board go to their owners.
    /// Adjito's default stops above 24 (docs/RULES.md §2); Valdez's
    /// Adji-Boto above 50. Applied by the game driver only: values score
    /// full play, which changes no win, draw or loss.
    pub const fn early_end(self) -> Option<u16> {
        match self {
            RuleSet::AdjitoDefault | RuleSet::AdjitoMustReach | RuleSet::AdjitoSlamForbidden => {
                Some(24)
            }
            RuleSet::AdjiBotoDefault => None,
            RuleSet::AdjiBotoValdez => Some(50),
        }
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.game(), self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names_parse_in_one_place() {
        for g in GameId::ALL {
            assert_eq!(g.name().parse(), Ok(g));
            assert_eq!(g.to_string().to_uppercase().parse(), Ok(g));
        }
        assert_eq!(" Adji-Boto ".parse(), Ok(GameId::AdjiBoto));
        let e = "chess".parse::<GameId>().unwrap_err().to_string();
        assert_eq!(e, "expected adjito or adjiboto, found 'chess'");
        let long = "x".repeat(100).parse::<GameId>().unwrap_err();
        assert_eq!(long.found.len(), 40);
    }

    #[test]
    fn names_and_codes_round_trip_within_each_game() {
        for r in RuleSet::ALL {
            assert_eq!(RuleSet::parse(r.game(), r.name()), Ok(r));
            assert_eq!(RuleSet::from_code(r.game(), r.code()), Some(r));
            assert_eq!(r.is_default(), r.code() == 0);
            assert_eq!(r.is_default(), r.differences().is_empty());
            assert_eq!(r.tables().game(), r.game());
        }
        let e = RuleSet::parse(GameId::AdjiBoto, "must-reach").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown rule set 'must-reach' for adjiboto: expected one of default, valdez"
        );
    }
}
