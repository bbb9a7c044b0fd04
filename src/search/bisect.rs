//! Exact values of stretch starts: null-window bisection over the possible
//! values, run by Lazy SMP when the pool has more than one thread.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use crate::game::{Game, Position};
use crate::tt::{Kind, TransTable};
use crate::value::{Range, NEG_INF, POS_INF};

use super::ctx::Ctx;
use super::negamax::Node;
use super::{Abort, Searcher};

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// Bounds of a stretch start's value under `kind` (Rule, Lo or Hi),
    /// by null-window bisection. The flag is true when the bounds hold for
    /// every way of scoring repeats: both ends were proved by tests and no
    /// test met a repeat or used a w-dependent cut.
    pub fn solve_start(&self, pos: &Position, kind: Kind) -> (Range, bool) {
        let w = match kind {
            Kind::Rule => self.opts.rule.w::<G>(pos),
            Kind::Lo => NEG_INF,
            Kind::Hi => POS_INF,
            Kind::Free => unreachable!("Free is not a start kind"),
        };
        let node = Node::start(*pos, w, kind);
        let n = pos.level() as i32;
        let mut cands: Vec<i32> = (-n..=n).collect();
        if !(-n..=n).contains(&w) {
            cands.push(w);
            cands.sort_unstable();
        }
        if self.opts.parallel && rayon::current_num_threads() > 1 {
            // Lazy SMP: helpers run the same bisection with perturbed move
            // orders and fill the shared table; the main thread's answer is
            // the one returned, and it stops the helpers when done.
            let done = Arc::new(AtomicBool::new(false));
            return rayon::scope(|sc| {
                for h in 1..rayon::current_num_threads() {
                    let mut ctx = Ctx::new(&self.shared);
                    ctx.helper = Some(done.clone());
                    ctx.perturb = h as u64;
                    let (node, cands) = (&node, &cands);
                    sc.spawn(move |_| {
                        let _ = self.bisect(node, cands, &mut ctx);
                    });
                }
                let r = self.bisect(&node, &cands, &mut Ctx::new(&self.shared));
                done.store(true, Relaxed);
                r
            });
        }
        self.bisect(&node, &cands, &mut Ctx::new(&self.shared))
    }

    /// The null-window bisection of [`Searcher::solve_start`] over the
    /// candidate values `cands` (sorted).
    fn bisect(&self, node: &Node, cands: &[i32], ctx: &mut Ctx) -> (Range, bool) {
        let mut r = Range {
            lower: cands[0],
            upper: *cands.last().unwrap(),
        };
        let (mut rep_any, mut lower_proved, mut upper_proved) = (false, false, false);
        while r.lower < r.upper && !self.shared.stopped() {
            let inside: Vec<i32> = cands
                .iter()
                .copied()
                .filter(|&v| v > r.lower && v <= r.upper)
                .collect();
            let t = inside[(inside.len() - 1) / 2];
            let Ok((v, rep)) = self.negamax(ctx, node, t - 1, t) else {
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
        let _: Result<(), Abort> = self.shared.flush(ctx);
        (r, !rep_any && lower_proved && upper_proved && r.exact())
    }
}
