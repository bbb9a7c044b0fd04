//! The root of an analysis: its value, then every move's value, each
//! searched under growing node budgets so that one hard proof cannot hold
//! up the easy ones. The root's value is solved first only where a limit
//! may stop the moves' solves ([`super::RootPhase`]); an analysis that
//! runs to the end takes it from the moves' exact values.
//!
//! The root's value is bisected two ways, taking turns under a budget that
//! doubles each round, each starting from the bounds both proved so far:
//! - the root as one stretch start ([`Searcher::solve_start`]): its quiet
//!   moves are searched inside the root's stretch;
//! - move by move: each test asks the moves, best guess first, whether
//!   one reaches the candidate, by a test of its child as a stretch start
//!   ([`Searcher::reaches`]).
//!
//! Neither is always the cheaper: on the deepest benchmark's two 55-seed
//! Adji-Boto positions one needs 59 thousand nodes and the other did not
//! finish in 60 s, and the other way round (`results/search.md`).
//!
//! Then each move's value (its child's `lo` and `hi` for a quiet move),
//! round-robin under budgets growing fourfold: a move whose exact value
//! needs a huge proof (some `lo` of a child can, where the position's
//! value does not) is left with bounds when a limit stops the search,
//! after the others are exact.

use crate::game::{Game, Move, MoveList, Position};
use crate::tt::{Kind, TransTable, NO_MOVE};
use crate::value::Range;

use super::bisect::{next_test, span};
use super::ordering::{MoveSorter, Order};
use super::{Abort, MoveResult, Searcher};

/// Nodes of the first round of the root value's budgets.
const ROOT_BUDGET: u64 = 1 << 18;

/// Nodes of the first round of the moves' budgets: on the suite's
/// largest Adji-Boto position, 2^18 cost 20 % more nodes than solving the
/// moves one after another without budgets, 2^20 and 2^22 nothing.
const MOVE_BUDGET: u64 = 1 << 20;

/// One move's solve in progress: what its value depends on, and the
/// bounds proved so far.
struct Pending {
    mv: Move,
    child: Position,
    captured: u8,
    /// The child's value (capture), or its `lo` and `hi` (quiet move);
    /// `None` until a first solve.
    parts: [Option<Range>; 2],
}

impl Pending {
    /// The start kinds its value depends on.
    fn kinds(&self) -> &'static [Kind] {
        if self.captured > 0 {
            &[Kind::Rule]
        } else {
            &[Kind::Lo, Kind::Hi]
        }
    }

    fn exact(&self) -> bool {
        self.parts[..self.kinds().len()]
            .iter()
            .all(|p| p.is_some_and(|r| r.exact()))
    }

    /// Its result, with the child's whole range where nothing is known.
    fn result(&self, w: i32) -> MoveResult {
        let n = self.child.level() as i32;
        let part = |i: usize, w: i32| self.parts[i].unwrap_or(Range::full(n, w));
        if self.captured > 0 {
            MoveResult::capture(self.mv, self.captured, part(0, 0))
        } else {
            let (lo, hi) = (
                part(0, crate::value::NEG_INF),
                part(1, crate::value::POS_INF),
            );
            MoveResult::quiet(self.mv, w, lo, hi)
        }
    }
}

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// The value of `pos`, the root of an analysis (a stretch start under
    /// the loop rule), with the flag of [`Searcher::solve_start`].
    pub(super) fn solve_root(&self, pos: &Position) -> (Range, bool) {
        let w = self.opts.rule.w::<G>(pos);
        let cands = self.candidates(pos, w);
        let mut r = span(&cands);
        let (mut free, mut first, mut budget) = (false, NO_MOVE, ROOT_BUDGET);
        while !self.shared.stopped() {
            self.shared.set_budget(Some(budget));
            let (a, f) = self.solve_start_within(pos, Kind::Rule, Some(r));
            (r, free) = (r.meet(a), f && a.exact());
            if r.exact() {
                break;
            }
            self.shared.set_budget(Some(budget));
            r = r.meet(self.root_by_moves(pos, w, r, &mut first, &cands));
            if r.exact() {
                break;
            }
            budget = budget.saturating_mul(2);
        }
        self.shared.set_budget(None);
        (r, free)
    }

    /// Bisects the root's value within `r` by asking its moves, the move
    /// that reached the last candidate (`first`) first; returns the bounds
    /// proved when done or stopped.
    fn root_by_moves(
        &self,
        pos: &Position,
        w: i32,
        mut r: Range,
        first: &mut u8,
        cands: &[i32],
    ) -> Range {
        let moves = G::legal_moves(pos);
        let order = Order {
            on: self.opts.ordering,
            hint: *first,
            tables: self.tables,
        };
        let sorter = MoveSorter::new::<G>(pos, &moves, &order);
        while r.lower < r.upper && !self.shared.stopped() {
            let t = next_test(cands, r);
            let mut hit = false;
            for c in sorter.children() {
                if self.shared.stopped() {
                    return r;
                }
                let reached = match c.exact {
                    Some(v) => Ok(v >= t),
                    None => self.reaches(pos, w, c.mv, t),
                };
                match reached {
                    Ok(true) => {
                        (hit, *first) = (true, c.mv.0);
                        break;
                    }
                    Ok(false) => {}
                    Err(Abort) => return r,
                }
            }
            if hit {
                r.lower = t;
            } else {
                let below = cands.iter().rev().copied().find(|&c| c < t);
                r.upper = below.unwrap_or(r.lower).max(r.lower);
            }
        }
        r
    }

    /// Analyses every move of `pos` within a stretch whose repeat score,
    /// seen by `pos`'s mover, is `w`, knowing that no move is worth more
    /// than `most` (the position's value is at most that). Returns the
    /// move results (unsorted).
    pub(super) fn move_results(&self, pos: &Position, w: i32, most: i32) -> Vec<MoveResult> {
        let moves: MoveList = G::legal_moves(pos);
        let mut pending: Vec<Pending> = moves
            .iter()
            .map(|mv| {
                let p = G::play_unchecked(pos, mv);
                Pending {
                    mv,
                    child: p.pos,
                    captured: p.captured,
                    parts: [None; 2],
                }
            })
            .collect();
        let mut budget = MOVE_BUDGET;
        while !self.shared.stopped() && pending.iter().any(|p| !p.exact()) {
            for p in pending.iter_mut().filter(|p| !p.exact()) {
                self.shared.set_budget(Some(budget));
                self.advance(p);
            }
            budget = budget.saturating_mul(4);
        }
        self.shared.set_budget(None);
        pending.iter().map(|p| p.result(w).at_most(most)).collect()
    }

    /// Works on a move's open parts in turn, within the current budget.
    fn advance(&self, p: &mut Pending) {
        for (i, &kind) in p.kinds().iter().enumerate() {
            if self.shared.stopped() {
                return;
            }
            if p.parts[i].is_some_and(|r| r.exact()) {
                continue;
            }
            let (r, free) = self.solve_start_within(&p.child, kind, p.parts[i]);
            p.parts[i] = Some(p.parts[i].map_or(r, |k| k.meet(r)));
            // A `lo` proved without any repeat is `hi` too.
            if kind == Kind::Lo && free && r.exact() {
                p.parts[1] = Some(r);
                return;
            }
        }
    }
}
