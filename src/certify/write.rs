//! The certificate writer (`adji certify`): builds the proof graph the
//! parent module describes, using the exact search and the tables as an
//! oracle for which move to take. Nothing it does is trusted: the checker
//! ([`super::check`]) re-derives every step.
//!
//! A depth-first search over claims: a `≥ t` node tries the moves the oracle
//! values at `t` or more (captures first), an `≤ t` node covers every move.
//! A claim met again on the current path closes a cycle, which is kept only
//! when the claim is loop-safe; otherwise that attempt fails and the next
//! move is tried (the path-based search with repetition scored `w` that
//! the search itself runs, so a true claim always finds a proof). Finished
//! nodes are shared by every later path that needs the same claim.

use std::collections::HashMap;

use crate::game::{Game, Position};
use crate::search::Searcher;
use crate::tables::TableSet;
use crate::tt::{Kind, TransTable};
use crate::value::LoopRule;

use super::{children, Certificate, Claim, Node, Proof};

/// A certificate that could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The claimed value is not the position's.
    #[error("the value is not {value}: value {symbol} {value} does not hold (the exact value is {exact})")]
    False {
        /// The value asked for.
        value: i32,
        /// Which half failed.
        symbol: &'static str,
        /// The position's exact value.
        exact: i32,
    },
    /// The search returned bounds, not a value.
    #[error("the search did not give an exact value for {0}")]
    Inexact(String),
    /// More nodes than the format holds, or an internal inconsistency.
    #[error("{0}")]
    Internal(String),
}

type Key = (u128, i8, Claim, i8);

/// Builds certificates for one game over a searcher and its tables.
pub struct Writer<'a, 's, G: Game, T: TransTable> {
    search: &'a Searcher<'s, G, T>,
    tables: &'a TableSet,
    rule: LoopRule,
    nodes: Vec<Option<Node>>,
    /// The nodes being proved on the current path.
    busy: HashMap<Key, u32>,
    /// The finished nodes of each board, `w` and direction, by threshold:
    /// a stronger claim serves every weaker need.
    done: HashMap<(u128, i8, Claim), Vec<(i8, u32)>>,
    fixpoints: HashMap<(u128, u8), i32>,
    /// Exact searches run as the oracle.
    pub solves: u64,
    /// Called with (nodes made, oracle searches) every 16384 nodes made.
    pub progress: Option<Box<dyn FnMut(usize, u64) + 'a>>,
}

impl<'a, 's, G: Game, T: TransTable> Writer<'a, 's, G, T> {
    /// A writer over `search` (exact: no limits) and the same `tables`.
    pub fn new(search: &'a Searcher<'s, G, T>, tables: &'a TableSet, rule: LoopRule) -> Self {
        Writer {
            search,
            tables,
            rule,
            nodes: Vec::new(),
            busy: HashMap::new(),
            done: HashMap::new(),
            fixpoints: HashMap::new(),
            solves: 0,
            progress: None,
        }
    }

    /// The exact value of `pos` as a stretch start.
    ///
    /// # Errors
    /// When the search gives bounds only.
    pub fn value(&mut self, pos: &Position) -> Result<i32, WriteError> {
        self.fixpoint(pos, Kind::Rule)
    }

    /// A certificate that `pos`, a stretch start, has the value `value`.
    ///
    /// # Errors
    /// [`WriteError::False`] when it has not.
    pub fn certify(&mut self, pos: &Position, value: i32) -> Result<Certificate, WriteError> {
        let w = self.rule.w::<G>(pos);
        self.certify_scored(pos, value, w)
    }

    /// [`Writer::certify`] with the root's stretch scored `w` instead of
    /// the loop rule's: not a certificate of the position's value (the
    /// checker refuses its root), but a proof graph for tests of the
    /// checker's cycle rule.
    ///
    /// # Errors
    /// [`WriteError::False`] when the claim does not hold.
    pub fn certify_scored(
        &mut self,
        pos: &Position,
        value: i32,
        w: i32,
    ) -> Result<Certificate, WriteError> {
        let mut roots = [0u32; 2];
        for (slot, claim) in roots.iter_mut().zip([Claim::AtLeast, Claim::AtMost]) {
            *slot = match self.prove(pos, w, claim, value)? {
                Some(id) => id,
                None => {
                    let b = (self.fixpoint(pos, Kind::Lo)?, self.fixpoint(pos, Kind::Hi)?);
                    return Err(WriteError::False {
                        value,
                        symbol: claim.symbol(),
                        exact: crate::value::value_of(w, b.0, b.1),
                    });
                }
            };
        }
        self.finish(pos, None, value, roots)
    }

    /// A certificate that move `mv` of `pos`, a stretch start, has the
    /// value `value`.
    ///
    /// # Errors
    /// [`WriteError::False`] when it has not; [`WriteError::Internal`] for
    /// an illegal move.
    pub fn certify_move(
        &mut self,
        pos: &Position,
        mv: crate::game::Move,
        value: i32,
    ) -> Result<Certificate, WriteError> {
        if !G::legal_moves(pos).contains(mv) {
            return Err(WriteError::Internal(format!("move {} is not legal", mv.0)));
        }
        let p = G::play_unchecked(pos, mv);
        let (w, need) = if p.captured > 0 {
            (self.rule.w::<G>(&p.pos), p.captured as i32 - value)
        } else {
            (-self.rule.w::<G>(pos), -value)
        };
        let mut roots = [0u32; 2];
        for (slot, claim) in roots.iter_mut().zip([Claim::AtMost, Claim::AtLeast]) {
            *slot = match self.prove(&p.pos, w, claim, need)? {
                Some(id) => id,
                None => {
                    return Err(WriteError::False {
                        value,
                        symbol: match claim {
                            Claim::AtMost => "≥",
                            Claim::AtLeast => "≤",
                        },
                        exact: self.move_value(pos, mv)?,
                    })
                }
            };
        }
        self.finish(pos, Some(mv.0), value, roots)
    }

    /// The exact value of move `mv` of `pos`, a stretch start.
    ///
    /// # Errors
    /// When the search gives bounds only.
    pub fn move_value(&mut self, pos: &Position, mv: crate::game::Move) -> Result<i32, WriteError> {
        let p = G::play_unchecked(pos, mv);
        if p.captured > 0 {
            return Ok(p.captured as i32 - self.fixpoint(&p.pos, Kind::Rule)?);
        }
        let (lo, hi) = (
            self.fixpoint(&p.pos, Kind::Lo)?,
            self.fixpoint(&p.pos, Kind::Hi)?,
        );
        Ok(crate::value::quiet_value(
            self.rule.w::<G>(pos),
            crate::value::Bounds { lo, hi },
        ))
    }

    /// The graph reachable from the two roots, numbered depth-first.
    fn finish(
        &mut self,
        pos: &Position,
        first: Option<u8>,
        value: i32,
        roots: [u32; 2],
    ) -> Result<Certificate, WriteError> {
        let mut id: HashMap<u32, u32> = HashMap::new();
        let mut order = Vec::new();
        let mut stack: Vec<u32> = roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            if id.contains_key(&i) {
                continue;
            }
            id.insert(i, order.len() as u32);
            order.push(i);
            let node = self.nodes[i as usize]
                .as_ref()
                .ok_or_else(|| WriteError::Internal(format!("node {i} was abandoned")))?;
            let mut kids: Vec<u32> = children(node).collect();
            kids.reverse();
            stack.extend(kids);
        }
        let renum = |c: u32| id[&c];
        let nodes = order
            .iter()
            .map(|&i| {
                let mut n = self.nodes[i as usize].clone().expect("checked above");
                n.proof = match n.proof {
                    Proof::One { mv, child } => Proof::One {
                        mv,
                        child: renum(child),
                    },
                    Proof::All(v) => {
                        Proof::All(v.into_iter().map(|(m, c)| (m, renum(c))).collect())
                    }
                    p => p,
                };
                n
            })
            .collect();
        Ok(Certificate {
            rules: G::RULES,
            rule: self.rule,
            root: pos.pack(),
            first,
            value,
            at_least: renum(roots[0]),
            at_most: renum(roots[1]),
            nodes,
        })
    }

    /// `lo`, `hi` or the rule's value of `pos` as a stretch start: from
    /// the tables when they cover it, else by an exact search (cached).
    fn fixpoint(&mut self, pos: &Position, kind: Kind) -> Result<i32, WriteError> {
        if let Some(b) = self.tables.bounds::<G>(pos) {
            return Ok(match kind {
                Kind::Lo => b.lo,
                Kind::Hi => b.hi,
                _ => b.value(self.rule.w::<G>(pos)),
            });
        }
        let key = (pos.pack_board().0, kind as u8);
        if let Some(&v) = self.fixpoints.get(&key) {
            return Ok(v);
        }
        self.solves += 1;
        let (r, _) = self.search.solve_start(pos, kind);
        if !r.exact() {
            return Err(WriteError::Inexact(crate::notation::format_board::<G>(pos)));
        }
        self.fixpoints.insert(key, r.lower);
        Ok(r.lower)
    }

    /// A node proving `claim t` about `pos` in a stretch scored `w`, or
    /// `None` when this path finds none.
    fn prove(
        &mut self,
        pos: &Position,
        w: i32,
        claim: Claim,
        t: i32,
    ) -> Result<Option<u32>, WriteError> {
        let (w8, t8) = (narrow(w)?, narrow(t)?);
        let board = pos.pack_board().0;
        let key = (board, w8, claim, t8);
        if let Some(id) = self.finished(board, w8, claim, t) {
            return Ok(Some(id));
        }
        if let Some(id) = self.busy.get(&key) {
            return Ok(claim.loop_safe(w, t).then_some(*id));
        }
        let node = |proof| Node { t: t8, proof };
        let leaf = if G::legal_moves(pos).is_empty() {
            Some(claim.holds(G::split(pos), t).then_some(Proof::End))
        } else if let Some(b) = self.tables.bounds::<G>(pos) {
            let index = crate::index::rank(&pos.pits, G::PITS);
            let level = pos.level() as u8;
            Some(
                claim
                    .holds(b.value(w), t)
                    .then_some(Proof::Table { level, index }),
            )
        } else {
            None
        };
        if let Some(leaf) = leaf {
            return Ok(match leaf {
                Some(p) => Some(self.add(key, node(p))?),
                None => None,
            });
        }
        let id = self.reserve()?;
        self.busy.insert(key, id);
        let proof = match claim {
            Claim::AtLeast => self.prove_one(pos, w, t)?,
            Claim::AtMost => self.prove_all(pos, w, t)?,
        };
        self.busy.remove(&key);
        match proof {
            Some(p) => {
                self.nodes[id as usize] = Some(node(p));
                self.mark_done(key, id);
                Ok(Some(id))
            }
            None => Ok(None),
        }
    }

    /// `value ≥ t`: the first move whose child's proof this path completes,
    /// among those the oracle values at `t` or more. Cheapest first: a
    /// child already proved (or a loop-safe cycle), a child the tables
    /// cover (a leaf), the biggest capture, then quiet moves; the oracle
    /// is asked only about the moves tried.
    fn prove_one(&mut self, pos: &Position, w: i32, t: i32) -> Result<Option<Proof>, WriteError> {
        let mut cands = Vec::new();
        for mv in G::legal_moves(pos).iter() {
            let p = G::play_unchecked(pos, mv);
            let (wc, need) = if p.captured > 0 {
                (self.rule.w::<G>(&p.pos), p.captured as i32 - t)
            } else {
                (-w, -t)
            };
            let (board, wc8) = (p.pos.pack_board().0, narrow(wc)?);
            let key = (board, wc8, Claim::AtMost, narrow(need)?);
            let cost = match self.busy.get(&key) {
                _ if self.finished(board, wc8, Claim::AtMost, need).is_some() => 0,
                Some(_) if Claim::AtMost.loop_safe(wc, need) => 0,
                _ if self.tables.bounds::<G>(&p.pos).is_some() => 1,
                _ if p.captured > 0 => 2,
                _ => 3,
            };
            cands.push((cost, std::cmp::Reverse(p.captured), mv, p, wc, need));
        }
        cands.sort_by_key(|c| (c.0, c.1));
        for (cost, _, mv, p, wc, need) in cands {
            // A quiet move is worth clamp(w, −hi(c), −lo(c)) ≥ t: with
            // w ≥ t exactly when lo(c) ≤ −t, with w < t when hi(c) ≤ −t.
            let reaches = match (cost, p.captured > 0) {
                (0 | 1, _) => true, // decided by the memo or the table leaf
                (_, true) => self.fixpoint(&p.pos, Kind::Rule)? <= need,
                (_, false) => {
                    let kind = if w >= t { Kind::Lo } else { Kind::Hi };
                    self.fixpoint(&p.pos, kind)? <= need
                }
            };
            if reaches {
                if let Some(child) = self.prove(&p.pos, wc, Claim::AtMost, need)? {
                    return Ok(Some(Proof::One { mv: mv.0, child }));
                }
            }
        }
        Ok(None)
    }

    /// `value ≤ t`: every move, each child proving the mirror claim.
    fn prove_all(&mut self, pos: &Position, w: i32, t: i32) -> Result<Option<Proof>, WriteError> {
        let mut out = Vec::new();
        for mv in G::legal_moves(pos).iter() {
            let p = G::play_unchecked(pos, mv);
            let child = if p.captured > 0 {
                let w_child = self.rule.w::<G>(&p.pos);
                self.prove(&p.pos, w_child, Claim::AtLeast, p.captured as i32 - t)?
            } else {
                self.prove(&p.pos, -w, Claim::AtLeast, -t)?
            };
            match child {
                Some(c) => out.push((mv.0, c)),
                None => return Ok(None),
            }
        }
        Ok(Some(Proof::All(out)))
    }

    fn reserve(&mut self) -> Result<u32, WriteError> {
        let id = u32::try_from(self.nodes.len())
            .map_err(|_| WriteError::Internal("more nodes than the format holds".into()))?;
        self.nodes.push(None);
        if id % 16384 == 0 {
            if let Some(f) = self.progress.as_mut() {
                f(self.nodes.len(), self.solves);
            }
        }
        Ok(id)
    }

    fn add(&mut self, key: Key, n: Node) -> Result<u32, WriteError> {
        let id = self.reserve()?;
        self.nodes[id as usize] = Some(n);
        self.mark_done(key, id);
        Ok(id)
    }

    fn mark_done(&mut self, key: Key, id: u32) {
        let (board, w, claim, t) = key;
        self.done
            .entry((board, w, claim))
            .or_default()
            .push((t, id));
    }

    /// A finished node claiming at least as much as `claim t`.
    fn finished(&self, board: u128, w: i8, claim: Claim, t: i32) -> Option<u32> {
        let list = self.done.get(&(board, w, claim))?;
        list.iter()
            .find(|&&(t2, _)| claim.holds(t2 as i32, t))
            .map(|&(_, id)| id)
    }
}

fn narrow(x: i32) -> Result<i8, WriteError> {
    i8::try_from(x).map_err(|_| WriteError::Internal(format!("{x} does not fit a record")))
}
