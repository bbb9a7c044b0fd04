//! Exact values of stretch starts: null-window bisection over the possible
//! values, and single null-window tests, each run on the search's threads
//! (see `parallel.rs`).

use crate::game::{Game, Position};
use crate::tt::{Kind, TransTable};
use crate::value::{LoopRule, Range, NEG_INF, POS_INF};

use super::ctx::Ctx;
use super::negamax::Node;
use super::{Abort, Searcher};

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// `pos` as a stretch start of `kind` (Rule, Lo or Hi), with its `w`.
    fn start_node(&self, pos: &Position, kind: Kind) -> Node {
        let w = match kind {
            Kind::Rule => self.opts.rule.w::<G>(pos),
            Kind::Lo => NEG_INF,
            Kind::Hi => POS_INF,
            Kind::Free => unreachable!("Free is not a start kind"),
        };
        Node::start(*pos, w, kind)
    }

    /// Bounds of a stretch start's value under `kind` (Rule, Lo or Hi),
    /// by null-window bisection. The flag is true when the bounds hold for
    /// every way of scoring repeats: both ends were proved by tests and no
    /// test met a repeat or used a w-dependent cut.
    pub fn solve_start(&self, pos: &Position, kind: Kind) -> (Range, bool) {
        self.solve_start_within(pos, kind, None)
    }

    /// [`Searcher::solve_start`], knowing that the value lies in `known`
    /// (proved earlier, when given): the bisection starts from there.
    pub(super) fn solve_start_within(
        &self,
        pos: &Position,
        kind: Kind,
        known: Option<Range>,
    ) -> (Range, bool) {
        let node = self.start_node(pos, kind);
        let mut cands = self.candidates(pos, node.w);
        // Every value is a candidate: known bounds snap onto them.
        if let Some(k) = known {
            cands.retain(|&c| c >= k.lower && c <= k.upper);
        }
        if cands.is_empty() {
            debug_assert!(false, "no candidate within {known:?}");
            return (known.unwrap_or(Range::point(node.w)), false);
        }
        self.run_threads(|ctx| self.bisect(&node, span(&cands), &cands, ctx))
    }

    /// The possible values of a stretch start of `pos` whose repeats
    /// score `w` (which may be ±∞), sorted.
    pub(super) fn candidates(&self, pos: &Position, w: i32) -> Vec<i32> {
        // Under `start` every finite value is a difference of two parts of
        // the `n` seeds (a split, or a capture's `c − value(child)`), so it
        // has `n`'s parity; under `even`, a repeat scores 0 at any level.
        let n = pos.level() as i32;
        let step = if self.opts.rule == LoopRule::Start {
            2
        } else {
            1
        };
        let mut cands: Vec<i32> = (-n..=n).step_by(step).collect();
        if !cands.contains(&w) {
            cands.push(w);
            cands.sort_unstable();
        }
        cands
    }

    /// Whether a stretch start's value under `kind` is at most `x`: one
    /// null-window test.
    ///
    /// # Errors
    /// [`Abort`] when a limit stopped the test.
    pub(super) fn at_most(&self, pos: &Position, kind: Kind, x: i32) -> Result<bool, Abort> {
        let node = self.start_node(pos, kind);
        let (v, _) = self.run_threads(|ctx| self.negamax(ctx, &node, x, x + 1))?;
        Ok(v <= x)
    }

    /// The null-window bisection of [`Searcher::solve_start`] from the
    /// bounds `r`, over the candidate values `cands` (sorted, within `r`).
    fn bisect(&self, node: &Node, mut r: Range, cands: &[i32], ctx: &mut Ctx) -> (Range, bool) {
        let (mut rep_any, mut lower_proved, mut upper_proved) = (false, false, false);
        while r.lower < r.upper && !self.shared.stopped() {
            let t = next_test(cands, r);
            let res = self.negamax(ctx, node, t - 1, t);
            let Ok((v, rep)) = res else {
                break;
            };
            rep_any |= rep;
            // Fail-soft bounds may fall between the possible values:
            // snap them onto the candidate list.
            if v >= t {
                let snapped = cands.iter().copied().find(|&c| c >= v).unwrap_or(r.upper);
                r.lower = r.lower.max(snapped).min(r.upper);
                lower_proved = true;
            } else {
                let snapped = cands
                    .iter()
                    .rev()
                    .copied()
                    .find(|&c| c <= v)
                    .unwrap_or(r.lower);
                r.upper = r.upper.min(snapped).max(r.lower);
                upper_proved = true;
            }
        }
        (r, !rep_any && lower_proved && upper_proved && r.exact())
    }
}

/// The range from the least to the greatest of `cands` (sorted, not empty).
pub(super) fn span(cands: &[i32]) -> Range {
    Range {
        lower: cands[0],
        upper: cands[cands.len() - 1],
    }
}

/// The next candidate to test in a bisection within `r` (`r.lower <
/// r.upper`, both candidates): the middle of those above `r.lower`, so that
/// a test `≥ t` that succeeds raises `lower` to `t` and one that fails
/// lowers `upper` below it.
pub(super) fn next_test(cands: &[i32], r: Range) -> i32 {
    let inside: Vec<i32> = cands
        .iter()
        .copied()
        .filter(|&v| v > r.lower && v <= r.upper)
        .collect();
    inside[(inside.len() - 1) / 2]
}
