//! Lower-level lookups over a [`Comm`]: what a rank of a distributed build
//! holds of the levels below the one it builds ([`Lower`]), and the forward
//! pass of a rank that does not hold them all whole ([`forward_remote`]).
//!
//! With node-local directories (`--dir /local/t/rank-{rank}`) rank `r`
//! holds only its own shard of each lower level: the slice
//! [`Layout::even`]`(size, P).range(r)`, the same split as the level being
//! built. A capture child that lands in another rank's slice is asked of
//! that rank. The forward pass goes block by block ([`BLOCK`] positions):
//!
//! 1. each board of the block is read for its quiet moves and its capture
//!    children ([`quiet_exits`]); a child this rank holds is read here, the
//!    others become **requests** to their owners: the child's level (1
//!    byte) and its offset in the owner's slice (4 bytes, or 8 when some
//!    slice has 2^32 positions or more), little-endian;
//! 2. one all-to-all sends the requests; each rank answers every request
//!    it received, in order, with the child's value (1 byte: a table value
//!    fits an `i8`, loop-sensitive entries resolved by the loop rule's `w`
//!    of the child, which the owner unranks);
//! 3. a second all-to-all returns the answers, and the captures are folded
//!    into the block's cells in the order the requests were made.
//!
//! Every rank runs the same number of blocks (that of the largest slice),
//! so the collectives pair up; a rank past its slice sends and answers
//! only. The three steps run on the rank's threads, one task a chunk of
//! [`DIRTY_CHUNK`] positions. Values depend on the children's values only,
//! so the cells are those of the one-process pass, whatever `P`.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rayon::prelude::*;

use super::cell::exit_words;
use super::frontier::DIRTY_CHUNK;
use super::level::chunk_done;
use super::part::Layout;
use crate::distributed::{process_cpu_secs, Comm};
use crate::game::{Game, Position};
use crate::games::packed::Word;
use crate::index::unrank;
use crate::progress::Progress;
use crate::tables::error::TableError;
use crate::tables::exits::{child, fold_captures, for_each_batch, quiet_exits, Capture};
use crate::tables::set::TableSet;
use crate::tables::table::Table;
use crate::value::LoopRule;

/// Positions of a block: the forward pass exchanges its lookups once a
/// block (a multiple of [`DIRTY_CHUNK`]). The unit tests take one chunk,
/// so that their small levels run several blocks.
pub(super) const BLOCK: usize = if cfg!(test) {
    DIRTY_CHUNK
} else {
    16 * DIRTY_CHUNK
};

/// A lower level as a rank holds it.
enum Held {
    /// Every entry (a level file, or every shard of it).
    Whole(Table),
    /// This rank's shard only; the others' entries are asked of them.
    Own(Table, Layout),
}

impl Held {
    /// The table held.
    fn table(&self) -> &Table {
        match self {
            Held::Whole(t) | Held::Own(t, _) => t,
        }
    }
}

/// The lower levels of a distributed build, as this rank holds them: the
/// whole levels `0..set.covered()` and, above them, each level whole or as
/// this rank's shard.
pub(super) struct Lower {
    /// The whole levels from 0 up (what the one-process pass reads).
    pub(super) set: TableSet,
    /// The levels above `set`, from `set.covered()` up.
    rest: Vec<Held>,
    /// This rank.
    me: usize,
}

impl Lower {
    /// No levels yet, for rank `me`.
    pub(super) fn new(set: TableSet, me: usize) -> Self {
        Lower {
            set,
            rest: Vec::new(),
            me,
        }
    }

    /// This rank.
    pub(super) fn me(&self) -> usize {
        self.me
    }

    /// Levels held (each whole or as this rank's shard): `0..covered()`.
    pub(super) fn covered(&self) -> u32 {
        self.set.covered() + self.rest.len() as u32
    }

    /// Adds the next level, whole.
    pub(super) fn push_whole(&mut self, t: Table) {
        if self.rest.is_empty() {
            self.set.push(t);
        } else {
            self.rest.push(Held::Whole(t));
        }
    }

    /// Adds the next level as this rank's shard of `layout`.
    pub(super) fn push_own(&mut self, t: Table, layout: Layout) {
        self.rest.push(Held::Own(t, layout));
    }

    /// The first damage a lookup met in a level held here
    /// ([`TableSet::check_damage`]).
    pub(super) fn damage(&self) -> Option<TableError> {
        let first = self.set.check_damage().err();
        first.or_else(|| self.rest.iter().find_map(|h| h.table().damage()))
    }

    /// Whether some level is held only in part (lookups must then go to
    /// other ranks).
    pub(super) fn partial(&self) -> bool {
        self.rest.iter().any(|h| matches!(h, Held::Own(..)))
    }

    /// The table of `level` and, when only this rank's shard is held, its
    /// layout.
    fn held(&self, level: u32) -> (&Table, Option<&Layout>) {
        match level.checked_sub(self.set.covered()) {
            None => (
                self.set.level(level).expect("a level below covered()"),
                None,
            ),
            Some(k) => match &self.rest[k as usize] {
                Held::Whole(t) => (t, None),
                Held::Own(t, l) => (t, Some(l)),
            },
        }
    }

    /// The rank to ask for entry `idx` of `level`, `None` when this rank
    /// holds it.
    fn owner(&self, level: u32, idx: usize) -> Option<(usize, u64)> {
        match self.held(level) {
            (_, None) => None,
            (_, Some(l)) => {
                let d = l.owner(idx as u64);
                (d != self.me).then(|| (d, idx as u64 - l.range(d).start))
            }
        }
    }

    /// The value of entry `idx` of `level` (held here) for the loop rule
    /// `rule`; `pits` from the game.
    /// A damaged entry (only if a file changed since it was checked)
    /// answers the worst capture; the level is then refused
    /// ([`Lower::damage`]).
    fn value<G: Game>(&self, rule: LoopRule, level: u32, idx: usize) -> i32 {
        self.held(level)
            .0
            .value_with(idx, || {
                let pos = Position {
                    pits: unrank(idx as u64, level as usize, G::PITS),
                    side: 0,
                    opening: 0,
                };
                rule.w::<G>(&pos)
            })
            .unwrap_or(level as i32)
    }

    /// Hints the processor to fetch entry `idx` of `level` if held here.
    fn prefetch(&self, level: u32, idx: usize) {
        let t = self.held(level).0;
        if t.holds(idx as u64) {
            t.prefetch(idx);
        }
    }

    /// Bytes of a request's offset: 8 when some slice of a partly held
    /// level has 2^32 positions or more, else 4.
    fn width(&self) -> usize {
        let own = self.rest.iter().filter_map(|h| match h {
            Held::Own(_, l) => Some(l.width()),
            Held::Whole(_) => None,
        });
        own.max().unwrap_or(4)
    }

    /// The answer to one request (`level`, `offset` in this rank's slice).
    ///
    /// # Errors
    /// A request for an entry this rank does not hold (a rank built with
    /// another split).
    fn answer<G: Game>(&self, rule: LoopRule, level: u32, offset: u64) -> Result<u8, TableError> {
        let bad = || TableError::Shards {
            path: std::path::PathBuf::from(format!("level {level}")),
            what: format!(
                "rank {} was asked for entry {offset} of its slice, which it does not hold",
                self.me
            ),
        };
        if level >= self.covered() {
            return Err(bad());
        }
        let (t, layout) = self.held(level);
        let first = layout.map_or(0, |l| l.range(self.me).start);
        let idx = first
            .checked_add(offset)
            .filter(|&i| t.holds(i))
            .ok_or_else(bad)?;
        Ok(self.value::<G>(rule, level, idx as usize) as i8 as u8)
    }
}

/// What one rank's lookups cost over a level.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LookupStats {
    /// Requests sent to other ranks.
    pub(super) requests: u64,
    /// Bytes sent to other ranks: requests and answers.
    pub(super) bytes: u64,
    /// All-to-alls (two a block).
    pub(super) rounds: u32,
    /// Seconds and CPU seconds in the all-to-alls.
    pub(super) comm: (f64, f64),
}

/// One chunk's work in a block: its boards' exits, its capture children,
/// and its requests to each rank.
struct Chunk<W: Word> {
    exits: Vec<(i32, u8)>,
    caps: Vec<Capture<W>>,
    requests: Vec<Vec<u8>>,
}

/// The forward pass of this rank's slice `words` (positions `start..` of
/// level `n`, settled at once when they have no quiet move, as
/// [`super::level::forward_cells`] with `settle`), lower-level lookups
/// asked of the ranks that hold them. A collective: every rank calls it
/// for the same level.
///
/// # Errors
/// A request for an entry its rank does not hold ([`Lower::answer`]).
pub(super) fn forward_remote<G: Game, W: Word>(
    comm: &dyn Comm,
    (words, start, n): (&mut [u16], u64, u32),
    (lower, rule): (&Lower, LoopRule),
    (blocks, dirty): (usize, &[AtomicBool]),
    bar: &dyn Progress,
) -> Result<LookupStats, TableError> {
    let mut stats = LookupStats::default();
    let width = lower.width();
    for b in 0..blocks {
        let lo = (b * BLOCK).min(words.len());
        let hi = ((b + 1) * BLOCK).min(words.len());
        let first = start + lo as u64;
        let chunks = read_block::<G, W>(&words[lo..hi], first, n, lower, width, comm.size());
        let mut send: Vec<Vec<u8>> = vec![Vec::new(); comm.size()];
        for (d, s) in send.iter_mut().enumerate() {
            for c in &chunks {
                s.extend_from_slice(&c.requests[d]);
            }
        }
        stats.requests += (send.iter().map(Vec::len).sum::<usize>() / (1 + width)) as u64;
        let got = exchange(comm, &send, &mut stats);
        let replies = answer_all::<G>(&got, lower, rule, width)?;
        let answers = exchange(comm, &replies, &mut stats);
        let dirty = &dirty[lo / DIRTY_CHUNK..];
        fold_block::<G, W>((&mut words[lo..hi], chunks), lower, rule, &answers, width);
        words[lo..hi]
            .par_chunks(DIRTY_CHUNK)
            .zip(dirty.par_iter())
            .for_each(|(ws, d)| chunk_done(ws, d, bar));
    }
    Ok(stats)
}

/// Step 1 of a block: every chunk's exits, captures and requests.
fn read_block<G: Game, W: Word>(
    words: &[u16],
    first: u64,
    n: u32,
    lower: &Lower,
    width: usize,
    ranks: usize,
) -> Vec<Chunk<W>> {
    words
        .par_chunks(DIRTY_CHUNK)
        .enumerate()
        .map(|(ci, ws)| {
            let from = first + (ci * DIRTY_CHUNK) as u64;
            let mut c = Chunk {
                exits: Vec::with_capacity(ws.len()),
                caps: Vec::new(),
                requests: vec![Vec::new(); ranks],
            };
            for_each_batch::<G>(from, ws.len(), n, |_, batch| {
                quiet_exits::<G, W>(n, batch, &mut c.caps, &mut c.exits, |l, i| {
                    lower.prefetch(l, i)
                })
            });
            for &(_, _, level, idx, _) in &c.caps {
                if let Some((d, offset)) = lower.owner(level, idx) {
                    let r = &mut c.requests[d];
                    r.push(level as u8);
                    r.extend_from_slice(&offset.to_le_bytes()[..width]);
                }
            }
            c
        })
        .collect()
}

/// One all-to-all, counted in `stats` (bytes sent to other ranks, time).
fn exchange(comm: &dyn Comm, send: &[Vec<u8>], stats: &mut LookupStats) -> Vec<Vec<u8>> {
    let (t, c) = (Instant::now(), process_cpu_secs());
    stats.bytes += send
        .iter()
        .enumerate()
        .filter(|(d, _)| *d != comm.rank())
        .map(|(_, s)| s.len() as u64)
        .sum::<u64>();
    let got = comm.all_to_all(send);
    stats.rounds += 1;
    stats.comm.0 += t.elapsed().as_secs_f64();
    stats.comm.1 += process_cpu_secs() - c;
    got
}

/// Step 2: the answers to the requests `got` from each rank, in order.
fn answer_all<G: Game>(
    got: &[Vec<u8>],
    lower: &Lower,
    rule: LoopRule,
    width: usize,
) -> Result<Vec<Vec<u8>>, TableError> {
    got.iter()
        .map(|reqs| {
            reqs.par_chunks(1 + width)
                .map(|r| {
                    let mut off = [0u8; 8];
                    off[..width].copy_from_slice(&r[1..]);
                    lower.answer::<G>(rule, r[0] as u32, u64::from_le_bytes(off))
                })
                .collect()
        })
        .collect()
}

/// Step 3: every chunk's captures folded into its exits (answers read in
/// the order the requests were made), then its cells written.
fn fold_block<G: Game, W: Word>(
    (words, chunks): (&mut [u16], Vec<Chunk<W>>),
    lower: &Lower,
    rule: LoopRule,
    answers: &[Vec<u8>],
    width: usize,
) {
    // Where each chunk's answers start, per rank.
    let mut at = vec![0usize; answers.len()];
    let starts: Vec<Vec<usize>> = chunks
        .iter()
        .map(|c| {
            let s = at.clone();
            for (a, r) in at.iter_mut().zip(&c.requests) {
                *a += r.len() / (1 + width);
            }
            s
        })
        .collect();
    words
        .par_chunks_mut(DIRTY_CHUNK)
        .zip(chunks)
        .zip(starts)
        .for_each(|((ws, mut c), mut at)| {
            fold_captures(&c.caps, &mut c.exits, |&(_, _, level, idx, cb)| match lower
                .owner(level, idx)
            {
                Some((d, _)) => {
                    at[d] += 1;
                    answers[d][at[d] - 1] as i8 as i32
                }
                None => lower
                    .held(level)
                    .0
                    .value_with(idx, || rule.w::<G>(&child::<G, W>(cb)))
                    .unwrap_or(level as i32),
            });
            exit_words(ws, &c.exits, true);
        });
}
