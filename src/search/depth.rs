//! Depth-limited bounds: plain minimax over a fixed number of plies, where
//! a position left open at the horizon counts with its whole range. The
//! results are proven bounds, never an evaluation.

use crate::game::{Game, Position};
use crate::tt::{Kind, TransTable};
use crate::value::{Contribution, Range, NEG_INF, POS_INF};

use super::ctx::Ctx;
use super::{MoveResult, Searcher};

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// Move results from [`Searcher::depth_range`], as `move_results` does
    /// with exact solves.
    pub(super) fn depth_move_results(&self, pos: &Position, w: i32, depth: u32) -> Vec<MoveResult> {
        let mut ctx = Ctx::new(&self.shared);
        let d = depth.saturating_sub(1);
        G::legal_moves(pos)
            .iter()
            .map(|mv| {
                let p = G::play_unchecked(pos, mv);
                if p.captured > 0 {
                    let rule_w = self.opts.rule.w::<G>(&p.pos);
                    MoveResult::capture(
                        mv,
                        p.captured,
                        self.depth_range(&mut ctx, &p.pos, d, rule_w, Some(Kind::Rule)),
                    )
                } else {
                    let lo = self.depth_range(&mut ctx, &p.pos, d, NEG_INF, Some(Kind::Lo));
                    let hi = self.depth_range(&mut ctx, &p.pos, d, POS_INF, Some(Kind::Hi));
                    MoveResult::quiet(mv, w, lo, hi)
                }
            })
            .collect()
    }

    /// Bounds of `pos`'s value by plain minimax to `depth` plies (no pruning,
    /// no transposition table), with repeats scored `w` as in `negamax` and
    /// endgame tables probed at stretch starts. At the horizon a position
    /// gets its whole range, so the result always contains the exact value.
    fn depth_range(
        &self,
        ctx: &mut Ctx,
        pos: &Position,
        depth: u32,
        w: i32,
        start: Option<Kind>,
    ) -> Range {
        if self.shared.count(ctx).is_err() || self.shared.stopped() {
            return Range::full(pos.level() as i32, w);
        }
        let key = pos.key();
        if start.is_none() && ctx.repeats(key) {
            return Range::point(w);
        }
        let moves = G::legal_moves(pos);
        if moves.is_empty() {
            return Range::point(G::split(pos));
        }
        if let (Some(kind), Some(t)) = (start, self.tables) {
            if let Some(b) = t.bounds::<G>(pos) {
                ctx.table_hits += 1;
                let v = match kind {
                    Kind::Lo => b.lo,
                    Kind::Hi => b.hi,
                    _ => b.value(w),
                };
                return Range::point(v);
            }
        }
        if depth == 0 {
            return Range::full(pos.level() as i32, w);
        }
        let saved = ctx.enter(key, start.is_some());
        let mut r = Range::NONE;
        for mv in moves.iter() {
            let p = G::play_unchecked(pos, mv);
            let m = if p.captured > 0 {
                let rule_w = self.opts.rule.w::<G>(&p.pos);
                let v = self.depth_range(ctx, &p.pos, depth - 1, rule_w, Some(Kind::Rule));
                Contribution::capture(p.captured, v).value
            } else {
                self.depth_range(ctx, &p.pos, depth - 1, -w, None).neg()
            };
            r = r.max_join(m);
        }
        ctx.leave(saved);
        r
    }
}
