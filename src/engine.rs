//! Analysis beyond the exact frontier: iterative-deepening alpha-beta on
//! *estimates*, with exact values wherever the game end or the endgame
//! tables reach, and *proven bounds* carried through the same search.
//!
//! # Contract of [`Engine::node`]
//!
//! `node(pos, depth, α, β, w, start)` returns `(estimate, proven)`:
//! - `estimate` (in 1/[`SCALE`] seeds) is a fail-soft alpha-beta score over
//!   the tree cut at `depth`, with the learned evaluation at the horizon
//!   (after a capture-only quiescence). It is an estimate, nothing more.
//! - `proven` is a closed range that contains `pos`'s value under the same
//!   path semantics as the exact search (repeats inside the stretch score
//!   `w`; a capture starts a fresh stretch scored by the loop rule). It is
//!   built from the game end, the tables, repeats and the value algebra of
//!   [`crate::value`] only, never from an estimate: a horizon or a pruned
//!   move contributes its whole possible range. So it holds whatever the
//!   window, the depth or the evaluation.
//!
//! At the root every move's child is searched as a fresh stretch start, so
//! move bounds are positional, exactly as the exact search and the tables
//! define move values (docs/RULES.md §4), and the root's proven range is their join.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::eval::Model;
use crate::game::{Game, Move, Position};
use crate::search::Limits;
use crate::tables::TableSet;
use crate::value::{Contribution, LoopRule, Range};

/// Internal scores are in 1/SCALE seeds.
pub const SCALE: i32 = 100;
const INF: i32 = i32::MAX / 4;
/// Longest capture sequence the quiescence follows.
const QUIESCENCE: u32 = 6;

/// Engine options.
#[derive(Clone, Copy, Debug)]
pub struct EngineOptions {
    /// Loop rule (values and tables).
    pub rule: LoopRule,
    /// Time and node limits.
    pub limits: Limits,
    /// Deepest iteration.
    pub max_depth: u32,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            rule: LoopRule::Start,
            limits: Limits::default(),
            max_depth: 64,
        }
    }
}

/// One root move's estimate and proven bounds.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct MoveEstimate {
    /// The move.
    #[serde(skip)]
    pub mv: Move,
    /// Seeds it captures.
    pub captured: u8,
    /// The engine's estimate of the move, in seeds for the mover.
    pub estimate: f64,
    /// Proven bounds of the move's value (exact when equal).
    pub proven: Range,
}

/// What one completed iteration found.
#[derive(Clone, Debug)]
pub struct DepthInfo {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The root estimate, in seeds.
    pub estimate: f64,
    /// The proven bounds of the root after this iteration.
    pub proven: Range,
    /// Nodes so far.
    pub nodes: u64,
    /// Milliseconds so far.
    pub time_ms: u64,
    /// Principal variation (estimated best line).
    pub pv: Vec<Move>,
}

/// The engine's answer for a position.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// The estimate of the position, in seeds for the mover.
    pub estimate: f64,
    /// Proven bounds of the position's value.
    pub proven: Range,
    /// Deepest completed iteration (0 when none completed).
    pub depth: u32,
    /// Every legal move, best estimate first.
    pub moves: Vec<MoveEstimate>,
    /// One entry per completed iteration.
    pub infos: Vec<DepthInfo>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in milliseconds.
    pub time_ms: u64,
}

impl Estimate {
    /// The exact value, when the proven bounds meet.
    pub fn exact(&self) -> Option<i32> {
        self.proven.exact().then_some(self.proven.lower)
    }

    /// The best move by estimate (preferring a proven-best one).
    pub fn best(&self) -> Option<Move> {
        self.moves.first().map(|m| m.mv)
    }
}

/// An estimate moved inside the proven bounds it came with: the value lies
/// there, so the estimate never contradicts what the search proved.
fn within((est, proven): (i32, Range)) -> (i32, Range) {
    let (lo, hi) = (
        proven.lower.saturating_mul(SCALE),
        proven.upper.saturating_mul(SCALE),
    );
    (est.clamp(lo.min(hi), hi), proven)
}

/// The root's proven bounds: the join of its moves' (positional) bounds.
fn root_bounds(moves: &[MoveEstimate]) -> Range {
    moves.iter().fold(Range::NONE, |a, m| a.max_join(m.proven))
}

/// Stopped by a limit.
struct Abort;

/// Entries the move hints hold before they are cleared.
const HINT_LIMIT: usize = 1 << 22;
/// Slots of the largest hint table: `HINT_LIMIT + 1` entries fill it to
/// just over a half, under the three quarters that make it grow.
const HINT_SLOTS: usize = 1 << 23;
/// Slots of a new hint table; it grows eightfold up to [`HINT_SLOTS`].
const FIRST_HINT_SLOTS: usize = 1 << 11;
/// Bytes of one hint slot: a key and a move.
const HINT_SLOT_BYTES: usize = 9;
/// A move no position has: an empty slot.
const NO_HINT: u8 = 0xFE;

/// The most memory one engine's move hints take, whatever it searches: the
/// largest table, and the one it grows from while both exist (81 MiB).
pub const HINT_BYTES: u64 = ((HINT_SLOTS + HINT_SLOTS / 8) * HINT_SLOT_BYTES) as u64;

/// The best move found at each inner node, by position key: tried first
/// there in the next iteration, and followed by the principal variation.
/// A map with a known bound: open addressing over a key array and a move
/// array, grown eightfold up to [`HINT_SLOTS`], and cleared when it holds
/// more than [`HINT_LIMIT`] entries (exact keys, so it answers as a hash
/// map of the same entries would).
struct Hints {
    keys: Vec<u64>,
    moves: Vec<u8>,
    shift: u32,
    len: usize,
}

impl Hints {
    fn new() -> Self {
        Self::with_slots(FIRST_HINT_SLOTS)
    }

    fn with_slots(n: usize) -> Self {
        Hints {
            keys: vec![0; n],
            moves: vec![NO_HINT; n],
            shift: 64 - n.trailing_zeros(),
            len: 0,
        }
    }

    /// The slot of `key`, or the empty slot where it would go.
    fn slot(&self, key: u64) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        while self.moves[i] != NO_HINT && self.keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    fn get(&self, key: u64) -> Option<u8> {
        let m = self.moves[self.slot(key)];
        (m != NO_HINT).then_some(m)
    }

    fn insert(&mut self, key: u64, mv: u8) {
        debug_assert_ne!(mv, NO_HINT);
        if self.len > HINT_LIMIT {
            self.clear();
        }
        let mut i = self.slot(key);
        if self.moves[i] == NO_HINT {
            if (self.len + 1) * 4 > self.keys.len() * 3 && self.keys.len() < HINT_SLOTS {
                self.grow();
                i = self.slot(key);
            }
            self.len += 1;
        }
        self.keys[i] = key;
        self.moves[i] = mv;
    }

    fn grow(&mut self) {
        let mut next = Hints::with_slots((self.keys.len() * 8).min(HINT_SLOTS));
        for (&k, &m) in self.keys.iter().zip(&self.moves) {
            if m != NO_HINT {
                let i = next.slot(k);
                (next.keys[i], next.moves[i]) = (k, m);
            }
        }
        next.len = self.len;
        *self = next;
    }

    fn clear(&mut self) {
        self.moves.fill(NO_HINT);
        self.len = 0;
    }
}

/// The depth-limited engine for game `G`.
pub struct Engine<'a, G: Game> {
    tables: Option<&'a TableSet>,
    model: &'a Model,
    opts: EngineOptions,
    nodes: u64,
    t0: Instant,
    path: Vec<u64>,
    base: usize,
    hints: Hints,
    history: [u32; 16],
    stop: Option<Arc<AtomicBool>>,
    _g: std::marker::PhantomData<G>,
}

impl<'a, G: Game> Engine<'a, G> {
    /// An engine over optional tables (built under `opts.rule`, checked by
    /// the caller with [`crate::search::check_tables`]) and an evaluation
    /// model for `G`.
    pub fn new(tables: Option<&'a TableSet>, model: &'a Model, opts: EngineOptions) -> Self {
        Engine {
            tables,
            model,
            opts,
            nodes: 0,
            t0: Instant::now(),
            path: Vec::with_capacity(256),
            base: 0,
            hints: Hints::new(),
            history: [0; 16],
            stop: None,
            _g: Default::default(),
        }
    }

    /// Stops the analysis as a limit does once `flag` is raised (checked
    /// with the limits): the web server cancels the job of a client that
    /// went away.
    pub fn stop_when(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    fn tick(&mut self) -> Result<(), Abort> {
        self.nodes += 1;
        if self.nodes & 255 == 0 {
            let l = self.opts.limits;
            if l.nodes.is_some_and(|n| self.nodes >= n)
                || l.time.is_some_and(|t| self.t0.elapsed() >= t)
                || self
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed))
                || self.tables.is_some_and(TableSet::damaged)
            {
                return Err(Abort);
            }
        }
        Ok(())
    }

    fn eval(&self, pos: &Position) -> i32 {
        (self.model.estimate::<G>(pos) * SCALE as f64).round() as i32
    }

    /// Exact answers that need no search: a repeat, the game end, a table.
    fn known(&self, pos: &Position, w: i32, start: bool) -> Option<(i32, Range)> {
        if !start && self.path[self.base..].contains(&pos.key()) {
            return Some((w * SCALE, Range::point(w)));
        }
        if G::legal_moves(pos).is_empty() {
            let v = G::split(pos);
            return Some((v * SCALE, Range::point(v)));
        }
        let b = self.tables?.bounds::<G>(pos)?;
        let v = b.value(w);
        let proven = if start {
            Range::point(v)
        } else {
            Range {
                lower: b.lo,
                upper: b.hi,
            }
        };
        Some((v * SCALE, proven))
    }

    /// See the module documentation for the contract.
    fn node(
        &mut self,
        pos: &Position,
        depth: u32,
        alpha: i32,
        beta: i32,
        w: i32,
        start: bool,
    ) -> Result<(i32, Range), Abort> {
        self.tick()?;
        if let Some(k) = self.known(pos, w, start) {
            return Ok(k);
        }
        if depth == 0 {
            return self.quiescence(pos, QUIESCENCE, alpha, beta, w).map(within);
        }
        let saved = self.base;
        if start {
            self.base = self.path.len();
        }
        self.path.push(pos.key());
        let r = self.expand(pos, depth, alpha, beta, w);
        self.path.pop();
        self.base = saved;
        r.map(within)
    }

    /// The moves of an inner node, searched in order with alpha-beta.
    fn expand(
        &mut self,
        pos: &Position,
        depth: u32,
        alpha: i32,
        beta: i32,
        w: i32,
    ) -> Result<(i32, Range), Abort> {
        let moves = self.ordered(pos);
        let (mut best, mut best_mv, mut proven, mut a) = (-INF, moves[0].0, Range::NONE, alpha);
        let mut searched = 0;
        for &(mv, child, cap) in &moves {
            let (est, part) = self.child(&child, cap, depth - 1, a, beta, w)?;
            proven = proven.max_join(part);
            searched += 1;
            if est > best {
                (best, best_mv) = (est, mv);
            }
            a = a.max(best);
            if a >= beta {
                self.history[mv.0 as usize & 15] += depth * depth;
                break;
            }
        }
        if searched < moves.len() {
            // Unsearched moves may be worth anything the board allows.
            proven = proven.max_join(Range::full(pos.level() as i32, w));
        }
        self.hints.insert(pos.key(), best_mv.0);
        Ok((best, proven))
    }

    /// A child's estimate and proven range, seen by the parent's mover.
    fn child(
        &mut self,
        child: &Position,
        cap: u8,
        depth: u32,
        alpha: i32,
        beta: i32,
        w: i32,
    ) -> Result<(i32, Range), Abort> {
        if cap > 0 {
            let c = cap as i32 * SCALE;
            let cw = self.opts.rule.w::<G>(child);
            let (v, r) = self.node(child, depth, c - beta, c - alpha, cw, true)?;
            Ok((c - v, Contribution::capture(cap, r).value))
        } else {
            let (v, r) = self.node(child, depth, -beta, -alpha, -w, false)?;
            Ok((-v, r.neg()))
        }
    }

    /// Stand pat on the evaluation, then try captures only. Proven: a
    /// capture's lower bound holds for the position (the mover may choose
    /// it); the upper bound is the whole range.
    fn quiescence(
        &mut self,
        pos: &Position,
        q: u32,
        alpha: i32,
        beta: i32,
        w: i32,
    ) -> Result<(i32, Range), Abort> {
        let n = pos.level() as i32;
        let mut proven = Range::full(n, w);
        let mut best = self.eval(pos);
        if q == 0 || best >= beta {
            return Ok((best, proven));
        }
        let mut a = alpha.max(best);
        for mv in G::legal_moves(pos).iter() {
            let p = G::play_unchecked(pos, mv);
            if p.captured == 0 {
                continue;
            }
            self.tick()?;
            let c = p.captured as i32 * SCALE;
            let cw = self.opts.rule.w::<G>(&p.pos);
            let (v, r) = match self.known(&p.pos, cw, true) {
                Some(k) => k,
                None => self.quiescence(&p.pos, q - 1, c - beta, c - a, cw)?,
            };
            let part = Contribution::capture(p.captured, r).value;
            proven.lower = proven.lower.max(part.lower);
            best = best.max(c - v);
            a = a.max(best);
            if a >= beta {
                break;
            }
        }
        Ok((best, proven))
    }

    /// Moves with children: the hint first, captures by size, then history.
    fn ordered(&self, pos: &Position) -> Vec<(Move, Position, u8)> {
        let hint = self.hints.get(pos.key());
        let mut v: Vec<(i64, Move, Position, u8)> = G::legal_moves(pos)
            .iter()
            .map(|mv| {
                let p = G::play_unchecked(pos, mv);
                let key = if Some(mv.0) == hint {
                    i64::MAX
                } else if p.captured > 0 {
                    (1 << 40) + p.captured as i64
                } else {
                    self.history[mv.0 as usize & 15] as i64
                };
                (key, mv, p.pos, p.captured)
            })
            .collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.0));
        v.into_iter().map(|(_, m, p, c)| (m, p, c)).collect()
    }

    /// Analyses `pos` (a stretch start) by iterative deepening within the
    /// limits. Every root move's child is a fresh stretch start, so move
    /// bounds are positional (docs/RULES.md §4), like the exact search's.
    pub fn analyse(&mut self, pos: &Position) -> Estimate {
        self.t0 = Instant::now();
        self.nodes = 0;
        let w = self.opts.rule.w::<G>(pos);
        let mut moves: Vec<MoveEstimate> = G::legal_moves(pos)
            .iter()
            .map(|mv| MoveEstimate {
                mv,
                captured: G::play_unchecked(pos, mv).captured,
                estimate: 0.0,
                proven: Range::full(pos.level() as i32, w),
            })
            .collect();
        let mut infos = Vec::new();
        if moves.is_empty() {
            let v = G::split(pos);
            return self.finish(v as f64, Range::point(v), moves, infos);
        }
        for depth in 1..=self.opts.max_depth {
            let Some(next) = self.iteration(pos, w, depth, &moves) else {
                break;
            };
            moves = next;
            infos.push(DepthInfo {
                depth,
                estimate: moves[0].estimate,
                proven: root_bounds(&moves),
                nodes: self.nodes,
                time_ms: self.t0.elapsed().as_millis() as u64,
                pv: self.pv(pos, moves[0].mv, depth as usize),
            });
            if moves.iter().all(|m| m.proven.exact()) {
                break;
            }
        }
        let proven = root_bounds(&moves);
        let est = if infos.is_empty() {
            self.eval(pos) as f64 / SCALE as f64
        } else {
            moves[0].estimate
        };
        self.finish(est, proven, moves, infos)
    }

    /// One iteration over the root moves; `None` when a limit stopped it
    /// (the previous iteration's results stand).
    fn iteration(
        &mut self,
        pos: &Position,
        w: i32,
        depth: u32,
        prev: &[MoveEstimate],
    ) -> Option<Vec<MoveEstimate>> {
        let mut out = Vec::with_capacity(prev.len());
        for m in prev {
            let p = G::play_unchecked(pos, m.mv);
            let (cw, sign) = if p.captured > 0 {
                (self.opts.rule.w::<G>(&p.pos), 1)
            } else {
                (-w, 0)
            };
            self.path.clear();
            self.base = 0;
            let (v, r) = self.node(&p.pos, depth - 1, -INF, INF, cw, true).ok()?;
            let (est, proven) = if sign == 1 {
                let c = p.captured as i32;
                (c * SCALE - v, Contribution::capture(p.captured, r).value)
            } else {
                (-v, r.neg())
            };
            // Every iteration's bounds are proven: keep their intersection.
            let proven = proven.meet(m.proven);
            out.push(MoveEstimate {
                estimate: within((est, proven)).0 as f64 / SCALE as f64,
                proven,
                ..*m
            });
        }
        out.sort_by(|a, b| {
            b.estimate
                .total_cmp(&a.estimate)
                .then(b.proven.lower.cmp(&a.proven.lower))
        });
        Some(out)
    }

    /// The estimated best line from the hints, stopping at a repeat.
    fn pv(&self, root: &Position, first: Move, max: usize) -> Vec<Move> {
        let mut line = vec![first];
        let mut pos = G::play_unchecked(root, first).pos;
        let mut seen = vec![root.key(), pos.key()];
        while line.len() < max {
            let Some(m) = self.hints.get(pos.key()) else {
                break;
            };
            let mv = Move(m);
            if !G::legal_moves(&pos).contains(mv) {
                break;
            }
            line.push(mv);
            pos = G::play_unchecked(&pos, mv).pos;
            if seen.contains(&pos.key()) {
                break;
            }
            seen.push(pos.key());
        }
        line
    }

    fn finish(
        &self,
        estimate: f64,
        proven: Range,
        moves: Vec<MoveEstimate>,
        infos: Vec<DepthInfo>,
    ) -> Estimate {
        Estimate {
            estimate,
            proven,
            depth: infos.last().map_or(0, |i| i.depth),
            moves,
            infos,
            nodes: self.nodes,
            time_ms: self.t0.elapsed().as_millis() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hints answer as a hash map of the same entries, across growths
    /// (keys chosen to collide in their low and high bits).
    #[test]
    fn hints_answer_as_a_map() {
        let mut h = Hints::new();
        let mut m = ahash::AHashMap::new();
        let mut x: u64 = 1;
        for i in 0..300_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = if i % 3 == 0 { i << 40 } else { x >> (i % 7) };
            let mv = (x >> 60) as u8 % 12;
            h.insert(key, mv);
            m.insert(key, mv);
            assert_eq!(h.len, m.len());
        }
        assert!(h.keys.len() > FIRST_HINT_SLOTS);
        for (&k, &v) in &m {
            assert_eq!(h.get(k), Some(v));
        }
        assert_eq!(h.get(12345), m.get(&12345).copied());
        h.clear();
        assert_eq!(h.get(m.keys().next().copied().unwrap()), None);
    }
}
