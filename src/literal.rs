//! The literal loop rule, solved by brute force, and its gap to the
//! solver's loop rules (`adji loop-gap`).
//!
//! The docs/RULES.md (§4) plays a game literally: when a position
//! (board and side to move) occurs a second time with no capture in
//! between, the game ends and each player takes the seeds on their side as
//! they lie. A position's *literal value* is the mover's seeds minus the
//! opponent's under perfect play with that rule, the position taken as the
//! start of a stretch. Unlike the solver's values (`start`, `even`), it
//! depends on the whole path since the last capture, so no retrograde
//! builder computes it: this module searches every path.
//!
//! **Cost.** The search is exponential in the length of the stretches, so
//! in the number of seeds. Every call takes a node budget and stops with
//! [`LiteralError::NodeLimit`] when it runs out; nothing here hangs. It
//! memoises only what is sound: the value of a position that starts a
//! stretch (after a capture, or the root) is a function of the position
//! alone and is kept; a position inside a stretch depends on the path and is
//! never cached. Inside a stretch it prunes with alpha-beta, which is exact
//! for the value of the given path.
//!
//! Owns: [`Literal`] (the solver and its stretch-start memo), [`loop_gap`]
//! (per level, how many positions' literal values differ from `start`'s and
//! `even`'s, the latter from the reference solver).

use ahash::AHashMap;
use serde::Serialize;

use crate::game::{Game, Position};
use crate::index::{level_size, unrank};
use crate::reference::Reference;
use crate::value::LoopRule;

/// Why a literal solve stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    /// The node budget ran out.
    #[error(
        "the literal loop rule's search (exponential in the seeds) needs more than {limit} nodes \
         for level {level}{fit}; raise --limit or lower --max-seeds"
    )]
    NodeLimit {
        /// The budget.
        limit: u64,
        /// The level being solved when it ran out.
        level: u32,
        /// Which levels fitted, as text (empty when none).
        fit: String,
    },
}

/// Values stay within ±48 (Adjito) or ±100 (Adji-Boto); these are the
/// search window's infinities.
const INF: i32 = 1_000;

/// The literal-rule solver of game `G`: a node budget and the values of
/// the stretch starts met so far.
pub struct Literal<G: Game> {
    memo: AHashMap<Position, i32>,
    nodes: u64,
    limit: u64,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> Literal<G> {
    /// A solver that visits at most `limit` nodes in all its calls.
    pub fn new(limit: u64) -> Self {
        Literal {
            memo: AHashMap::new(),
            nodes: 0,
            limit,
            _game: std::marker::PhantomData,
        }
    }

    /// Nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The literal value of main-phase position `pos` taken as the start of
    /// a stretch (mover minus opponent, in seeds still on the board), or
    /// `None` when the node budget ran out (the solver keeps what it
    /// memoised, all of it exact).
    pub fn value(&mut self, pos: &Position) -> Option<i32> {
        if let Some(&v) = self.memo.get(pos) {
            return Some(v);
        }
        let v = self.search(pos, &mut Vec::new(), -INF, INF)?;
        self.memo.insert(*pos, v);
        Some(v)
    }

    /// Fail-soft alpha-beta under the literal rule along the stretch
    /// `path`: exact when the result lies strictly inside `(alpha, beta)`,
    /// else a bound on the same side.
    fn search(
        &mut self,
        pos: &Position,
        path: &mut Vec<Position>,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        self.nodes += 1;
        if self.nodes > self.limit {
            return None;
        }
        if path.contains(pos) {
            return Some(G::split(pos));
        }
        let moves = G::legal_moves(pos);
        if moves.is_empty() {
            return Some(G::split(pos));
        }
        // no value exceeds the seeds on the board: reaching it settles the node
        let beta = beta.min(pos.level() as i32);
        let mut children: Vec<_> = moves.iter().map(|m| G::play_unchecked(pos, m)).collect();
        // captures first: their values are memoised and usually decide
        children.sort_by_key(|p| std::cmp::Reverse(p.captured));
        path.push(*pos);
        let mut best = -INF;
        for p in &children {
            let v = if p.captured > 0 {
                match self.value(&p.pos) {
                    Some(c) => p.captured as i32 - c,
                    None => {
                        path.pop();
                        return None;
                    }
                }
            } else {
                match self.search(&p.pos, path, -beta, -alpha.max(best)) {
                    Some(c) => -c,
                    None => {
                        path.pop();
                        return None;
                    }
                }
            };
            best = best.max(v);
            if best >= beta {
                break;
            }
        }
        path.pop();
        Some(best)
    }
}

/// One level's comparison in [`loop_gap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LevelGap {
    /// Seeds on the board.
    pub level: u32,
    /// Main-phase positions: every board of the level, both sides to move.
    pub positions: u64,
    /// Positions whose literal value differs from the `start` rule's value.
    pub differ_start: u64,
    /// Positions whose literal value differs from the `even` rule's value.
    pub differ_even: u64,
    /// Positions whose `start` value is loop-sensitive (`lo < hi`).
    pub loop_sensitive: u64,
    /// Literal-solver nodes spent on this level.
    pub nodes: u64,
}

/// For every level `0..=max` of game `G`: how many main-phase positions
/// (each board, both sides to move) have a literal-rule value different
/// from the `start` rule's and from the `even` rule's (both from the
/// reference solver, [`Reference`]). The levels are solved in order with
/// one memo and one budget of `limit` literal-solver nodes in all.
///
/// # Errors
/// [`LiteralError::NodeLimit`] naming the first level that did not fit.
pub fn loop_gap<G: Game>(max: u32, limit: u64) -> Result<Vec<LevelGap>, LiteralError> {
    // the literal values first, so that a level beyond the budget is
    // refused before the reference solver's work
    let mut lit = Literal::<G>::new(limit);
    let mut values: Vec<(Vec<i32>, u64)> = Vec::new();
    for n in 0..=max {
        let before = lit.nodes();
        let mut v = Vec::new();
        for pos in level_positions::<G>(n) {
            let Some(x) = lit.value(&pos) else {
                let fit = match n {
                    0 => String::new(),
                    _ => format!(" (levels 0..={} fit)", n - 1),
                };
                return Err(LiteralError::NodeLimit {
                    limit,
                    level: n,
                    fit,
                });
            };
            v.push(x);
        }
        values.push((v, lit.nodes() - before));
    }
    let start = Reference::build::<G>(max, LoopRule::Start);
    let even = Reference::build::<G>(max, LoopRule::Even);
    let mut out = Vec::new();
    for (n, (v, nodes)) in (0..=max).zip(values) {
        let mut g = LevelGap {
            level: n,
            positions: 0,
            differ_start: 0,
            differ_even: 0,
            loop_sensitive: 0,
            nodes,
        };
        for (pos, x) in level_positions::<G>(n).zip(v) {
            g.positions += 1;
            g.differ_start += u64::from(x != start.value::<G>(&pos));
            g.differ_even += u64::from(x != even.value::<G>(&pos));
            let b = start.bounds(&pos);
            g.loop_sensitive += u64::from(b.lo < b.hi);
        }
        out.push(g);
    }
    Ok(out)
}

/// Every main-phase position of level `n`: each board in rank order, with
/// side 0 then side 1 to move.
fn level_positions<G: Game>(n: u32) -> impl Iterator<Item = Position> {
    (0..level_size(n as usize, G::PITS)).flat_map(move |idx| {
        let pits = unrank(idx, n as usize, G::PITS);
        (0..2).map(move |side| Position {
            pits,
            side,
            opening: 0,
        })
    })
}

/// The answer of `adji loop-gap`: the rule set and every level's
/// [`LevelGap`], with totals.
#[derive(Debug, Clone, Serialize)]
pub struct LoopGapReport {
    /// The game's name.
    pub game: &'static str,
    /// The rule set's name.
    pub rules: &'static str,
    /// One entry per level, 0 up.
    pub levels: Vec<LevelGap>,
    /// Positions in all.
    pub positions: u64,
    /// Positions whose literal value differs from `start`'s, in all.
    pub differ_start: u64,
    /// Positions whose literal value differs from `even`'s, in all.
    pub differ_even: u64,
}

impl LoopGapReport {
    /// The report of [`loop_gap`]'s levels for game `G`.
    pub fn new<G: Game>(levels: Vec<LevelGap>) -> Self {
        LoopGapReport {
            game: G::ID.name(),
            rules: G::RULES.name(),
            positions: levels.iter().map(|g| g.positions).sum(),
            differ_start: levels.iter().map(|g| g.differ_start).sum(),
            differ_even: levels.iter().map(|g| g.differ_even).sum(),
            levels,
        }
    }
}

impl std::fmt::Display for LoopGapReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} ({} rules): literal loop rule against `start` and `even`, main phase, both sides to move",
            self.game, self.rules
        )?;
        writeln!(
            f,
            "| level | positions | literal ≠ start | literal ≠ even | loop-sensitive (start) | nodes |"
        )?;
        writeln!(f, "|---:|---:|---:|---:|---:|---:|")?;
        let (mut p, mut s) = (0, 0);
        for g in &self.levels {
            p += g.positions;
            s += g.differ_start;
            writeln!(
                f,
                "| {} | {} | {} | {} | {} | {} |",
                g.level, g.positions, g.differ_start, g.differ_even, g.loop_sensitive, g.nodes
            )?;
        }
        writeln!(
            f,
            "levels 0..={}: literal ≠ start on {s} of {p} positions, literal ≠ even on {}",
            self.levels.last().map_or(0, |g| g.level),
            self.differ_even
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Adjito;

    /// The plain negamax of the rule (no memo, no pruning), for comparison.
    fn plain<G: Game>(pos: &Position, path: &mut Vec<Position>) -> i32 {
        if path.contains(pos) {
            return G::split(pos);
        }
        let moves = G::legal_moves(pos);
        if moves.is_empty() {
            return G::split(pos);
        }
        path.push(*pos);
        let mut best = i32::MIN;
        for mv in moves.iter() {
            let p = G::play_unchecked(pos, mv);
            let v = if p.captured > 0 {
                p.captured as i32 - plain::<G>(&p.pos, &mut Vec::new())
            } else {
                -plain::<G>(&p.pos, path)
            };
            best = best.max(v);
        }
        path.pop();
        best
    }

    #[test]
    fn memo_and_pruning_give_the_plain_search_values_on_levels_0_to_3() {
        let mut lit = Literal::<Adjito>::new(u64::MAX);
        for n in 0..=3usize {
            for idx in 0..level_size(n, 12) {
                for side in 0..2 {
                    let pos = Position {
                        pits: unrank(idx, n, 12),
                        side,
                        opening: 0,
                    };
                    assert_eq!(
                        lit.value(&pos),
                        Some(plain::<Adjito>(&pos, &mut Vec::new()))
                    );
                }
            }
        }
    }

    #[test]
    fn literal_and_start_disagree_on_4_of_910_adjito_positions_with_at_most_3_seeds() {
        // docs/RULES.md §4 quotes this figure
        let gap = loop_gap::<Adjito>(3, 10_000_000).unwrap();
        let total: u64 = gap.iter().map(|g| g.positions).sum();
        let differ: u64 = gap.iter().map(|g| g.differ_start).sum();
        assert_eq!((total, differ), (910, 4));
    }

    #[test]
    fn a_budget_too_small_is_an_error_naming_the_level() {
        let e = loop_gap::<Adjito>(6, 2_000).unwrap_err();
        let LiteralError::NodeLimit { level, .. } = &e;
        assert!(*level <= 6);
        assert!(e.to_string().contains("--limit"), "{e}");
    }
}
