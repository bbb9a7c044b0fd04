//! The independent checker of certificates (`adji certify check`).
//!
//! Written to be read in one sitting. It uses the move rules
//! ([`crate::game::Game`]: legal moves, playing a move, the split), the
//! value algebra ([`crate::value`]: `w`, `clamp(w, lo, hi)`, a capture's
//! value) and the table reader ([`crate::tables::TableSet`]), and nothing of
//! the search or the table builder. What a certificate means and why a
//! cycle is accepted only through loop-safe claims is in the parent
//! module's documentation ([`crate::certify`]).
//!
//! It checks, stopping at the first failure and naming its node:
//! 1. the root: a position of the game, and, with a first move, a legal
//!    one; the two root nodes are placed: the root's board (or the first
//!    move's child), `w` by the loop rule, `≥ v` and `≤ v` (or what the
//!    move's value needs of its child);
//! 2. every node in file order: that it has been placed (it is a root node
//!    or a child of a node before it); its proof (a game end whose split
//!    meets the claim; a table entry at the board's own level and index
//!    whose `clamp(w, lo, hi)` meets it; for `≥` one legal move, for `≤`
//!    exactly the legal moves), with every move replayed: the child is
//!    placed at the board the move leads to, the `w` it gives and the
//!    opposite claim, the same for every parent, and its threshold gives
//!    what the parent needs;
//! 3. that the nodes whose claims are not loop-safe form no cycle.
//!
//! Then it reports whether the table levels it read are the files of a
//! checksum list that its caller names ([`tables_status`]; SHA-256 of files
//! that `adji tables verify` checked in full when they were listed). It
//! never looks for a list of its own accord.

use std::collections::BTreeSet;
use std::path::Path;

use crate::game::{Game, Move, Packed, Position};
use crate::notation::{format_board, format_move};
use crate::tables::TableSet;
use crate::value::capture_value;

use super::{Certificate, Claim, FormatError, ProofRef, Records};

/// Why a certificate was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{what}", .node.map(|n| format!("node {n}: ")).unwrap_or_default())]
pub struct Rejected {
    /// The first bad node, when the fault is in one.
    pub node: Option<usize>,
    /// What is wrong.
    pub what: String,
}

fn bad(node: usize, what: String) -> Rejected {
    Rejected {
        node: Some(node),
        what,
    }
}

/// What a successful check established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// Nodes checked.
    pub nodes: usize,
    /// Table leaves.
    pub table_leaves: usize,
    /// Game-end leaves.
    pub end_leaves: usize,
    /// Nodes on quiet cycles (all loop-safe).
    pub on_cycles: usize,
    /// The table levels the leaves read.
    pub levels: Vec<u32>,
}

/// Checks a decoded certificate against the tables of `dir` (through its
/// file bytes: [`check_records`]).
///
/// # Errors
/// [`Rejected`], naming the first bad node, when anything does not hold,
/// or when the tables cannot be opened.
pub fn check(cert: &Certificate, dir: &Path) -> Result<Accepted, Rejected> {
    let bytes = cert.encode();
    let rec = Records::parse(&bytes).map_err(|e| match e {
        FormatError::Node { node, what } => bad(node, what),
        e => Rejected {
            node: None,
            what: e.to_string(),
        },
    })?;
    check_records(&rec, dir)
}

/// Checks a certificate file's records ([`Records::parse`]) against the
/// tables of `dir`. Besides the file and its offsets it holds 9 bytes a
/// node while it places them, and then, for the cycles, at most 14 bytes a
/// node and 4 an edge: within 4 times the file's size.
///
/// # Errors
/// [`Rejected`], naming the first bad node, when anything does not hold,
/// or when the tables cannot be opened.
pub fn check_records(rec: &Records, dir: &Path) -> Result<Accepted, Rejected> {
    crate::with_rules!(rec.head.rules, check_game(rec, dir))
}

/// Where a node stands, given by its parent (or, for a root node, by the
/// header): the board its claim is about, its stretch's `w` and its claim's
/// direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    board: u128,
    w: i32,
    claim: Claim,
}

/// Each node's place, once a parent (or the header) has placed it, in 9
/// bytes: the board as its level, colex rank and opening state (60 bits),
/// the claim and a placed flag; and `w`.
struct Places {
    code: Vec<u64>,
    w: Vec<i8>,
}

const PLACED: u64 = 1 << 63;
const AT_MOST: u64 = 1 << 62;

impl Places {
    fn new(n: usize) -> Places {
        Places {
            code: vec![0; n],
            w: vec![0; n],
        }
    }

    fn get<G: Game>(&self, i: usize) -> Option<Place> {
        let code = self.code[i];
        if code & PLACED == 0 {
            return None;
        }
        let (rank, level) = (code & ((1 << 43) - 1), (code >> 43) & 0x7F);
        let opening = ((code >> 50) & 0x3FF) as u16 | (((code >> 60) & 1) as u16) << 15;
        let pits = crate::index::unrank(rank, level as usize, G::PITS);
        let pos = Position {
            pits,
            side: 0,
            opening,
        };
        Some(Place {
            board: pos.pack_board().0,
            w: self.w[i] as i32,
            claim: if code & AT_MOST != 0 {
                Claim::AtMost
            } else {
                Claim::AtLeast
            },
        })
    }

    fn set<G: Game>(&mut self, i: usize, at: Place) {
        let pos = Packed(at.board).unpack();
        let rank = crate::index::rank(&pos.pits, G::PITS);
        let opening = pos.opening as u64;
        self.code[i] = PLACED
            | rank
            | (pos.level() as u64) << 43
            | (opening & 0x3FF) << 50
            | ((opening >> 15) & 1) << 60
            | if at.claim == Claim::AtMost {
                AT_MOST
            } else {
                0
            };
        // |w| is at most the seeds of the game (100).
        self.w[i] = at.w as i8;
    }
}

fn check_game<G: Game>(rec: &Records, dir: &Path) -> Result<Accepted, Rejected> {
    let n = rec.len();
    let top = (0..n)
        .filter_map(|i| match rec.node(i).proof {
            ProofRef::Table { level, .. } => Some(level as u32),
            _ => None,
        })
        .max();
    let tables = match top {
        // Opened for the certificate's rule set and loop rule only: files of
        // any other are refused by the reader (named in its error).
        Some(top) => TableSet::open::<G>(dir, rec.head.rule, top).map_err(|e| Rejected {
            node: None,
            what: format!("tables: {e}"),
        })?,
        None => TableSet::empty(G::RULES, rec.head.rule),
    };
    let mut places = Places::new(n);
    place_roots::<G>(rec, &mut places)?;
    let mut acc = Accepted {
        nodes: n,
        table_leaves: 0,
        end_leaves: 0,
        on_cycles: 0,
        levels: Vec::new(),
    };
    let mut levels = BTreeSet::new();
    for i in 0..n {
        let at = places.get::<G>(i).ok_or_else(|| {
            bad(
                i,
                "is neither a root node nor a child of a node stored before it".into(),
            )
        })?;
        check_node::<G>(rec, &tables, i, at, &mut places).map_err(|e| bad(i, e))?;
        match rec.node(i).proof {
            ProofRef::Table { level, .. } => {
                acc.table_leaves += 1;
                levels.insert(level as u32);
            }
            ProofRef::End => acc.end_leaves += 1,
            _ => {}
        }
    }
    // The cycles need only which nodes are not loop-safe, and `w`.
    let unsafe_nodes: Vec<bool> = (0..n)
        .map(|i| {
            let at = places.get::<G>(i).expect("every node placed");
            !at.claim.loop_safe(at.w, rec.node(i).t as i32)
        })
        .collect();
    let Places { w, .. } = places;
    check_cycles(rec, &unsafe_nodes, &w)?;
    drop((unsafe_nodes, w));
    acc.on_cycles = count_on_cycles(rec);
    acc.levels = levels.into_iter().collect();
    Ok(acc)
}

/// Places the root nodes: `≥ v` and `≤ v` about the root as a stretch
/// start, or, with a first move, what the move's value needs of its child.
fn place_roots<G: Game>(rec: &Records, places: &mut Places) -> Result<(), Rejected> {
    let head = &rec.head;
    let root = head.root.unpack();
    let header = |what: String| Rejected { node: None, what };
    if !is_position::<G>(&root) || root.pack() != head.root {
        return Err(header(format!(
            "the root {:#x} is not a position of {}",
            head.root.0,
            G::ID
        )));
    }
    let v = head.value;
    let (board, w, at_least, at_most) = match head.first {
        None => (
            root,
            head.rule.w::<G>(&root),
            (Claim::AtLeast, v),
            (Claim::AtMost, v),
        ),
        Some(m) => {
            if !G::legal_moves(&root).contains(Move(m)) {
                return Err(header(format!(
                    "the first move {m} is not legal at the root"
                )));
            }
            let p = G::play_unchecked(&root, Move(m));
            // The move is worth c − value(child) (a capture) or −value(child).
            let (w, need) = if p.captured > 0 {
                (head.rule.w::<G>(&p.pos), capture_value(p.captured, v))
            } else {
                (-head.rule.w::<G>(&root), -v)
            };
            (p.pos, w, (Claim::AtMost, need), (Claim::AtLeast, need))
        }
    };
    let board = board.pack_board().0;
    for (id, (claim, t)) in [(head.at_least, at_least), (head.at_most, at_most)] {
        let nt = rec.node(id as usize).t;
        let at = Place { board, w, claim };
        if nt as i32 != t {
            return Err(bad(
                id as usize,
                format!(
                    "a root node must claim value {} {t} for {}; it claims {}",
                    claim.symbol(),
                    describe_board::<G>(board),
                    describe(at, nt)
                ),
            ));
        }
        place::<G>(rec, places, id, at).map_err(|e| bad(id as usize, e))?;
    }
    Ok(())
}

/// Places node `child` at `at`, or checks that it is placed there already
/// (naming, when not, what placed it first: the header, or the first node
/// in file order with an edge to it).
fn place<G: Game>(rec: &Records, places: &mut Places, child: u32, at: Place) -> Result<(), String> {
    let c = child as usize;
    match places.get::<G>(c) {
        None => {
            places.set::<G>(c, at);
            Ok(())
        }
        Some(was) if was == at => Ok(()),
        Some(was) => {
            let by_header = [rec.head.at_least, rec.head.at_most].contains(&child);
            let first = (!by_header)
                .then(|| (0..rec.len()).find(|&p| rec.node(p).edges().any(|(_, x)| x == child)))
                .flatten();
            Err(format!(
                "node {child} is reached here with {} at board {:#x}, but {} with {} at board {:#x}",
                describe_place(at),
                at.board,
                first.map_or("the header places it".into(), |p| format!(
                    "node {p} reaches it"
                )),
                describe_place(was),
                was.board
            ))
        }
    }
}

/// A packed board of the game: pits beyond the game's zero, no more seeds
/// than the game has, and no opening phase where the game has none.
fn is_position<G: Game>(pos: &Position) -> bool {
    pos.pits[G::PITS..].iter().all(|&x| x == 0)
        && pos.level() <= G::TOTAL
        && (G::HAS_OPENING || pos.opening == 0)
}

/// Node `i`'s proof, at its place, placing its children.
fn check_node<G: Game>(
    rec: &Records,
    tables: &TableSet,
    i: usize,
    at: Place,
    places: &mut Places,
) -> Result<(), String> {
    let n = rec.node(i);
    let pos = Packed(at.board).unpack();
    let t = n.t as i32;
    let legal = G::legal_moves(&pos);
    let me = format!("claim {}", describe(at, n.t));
    match n.proof {
        ProofRef::End => {
            let split = G::split(&pos);
            if !legal.is_empty() {
                return Err(format!("{me}: a game end, but the game is not over"));
            }
            if !at.claim.holds(split, t) {
                return Err(format!("{me}: the game is over with split {split}"));
            }
        }
        ProofRef::Table { level, index } => {
            let level = level as u32;
            let rank = crate::index::rank(&pos.pits, G::PITS);
            if level != pos.level() || index != rank || pos.in_opening() {
                return Err(format!(
                    "{me}: names table entry {level}/{index}, but its board is entry {}/{rank}",
                    pos.level()
                ));
            }
            let table = tables
                .level(level)
                .ok_or_else(|| format!("{me}: table level {level} is not in the tables"))?;
            let b = table.bounds(index as usize).ok_or_else(|| {
                let e = table.damage().map(|e| e.to_string()).unwrap_or_default();
                format!("{me}: table entry {level}/{index} is damaged: {e}")
            })?;
            let v = b.value(at.w);
            if !at.claim.holds(v, t) {
                return Err(format!(
                    "{me}: table entry {level}/{index} has lo {} hi {}, so value {v} with w = {}",
                    b.lo, b.hi, at.w
                ));
            }
        }
        ProofRef::One { mv, child } => {
            if at.claim != Claim::AtLeast {
                return Err(format!("{me}: one move proves only a ≥ claim"));
            }
            if !legal.contains(Move(mv)) {
                return Err(format!("{me}: move {mv} is not legal"));
            }
            check_edge::<G>(rec, i, at, &pos, Move(mv), child, places)?;
        }
        ProofRef::All(_) => {
            if at.claim != Claim::AtMost {
                return Err(format!("{me}: every move proves only a ≤ claim"));
            }
            let listed: Vec<Move> = n.edges().map(|(m, _)| Move(m)).collect();
            let want: Vec<Move> = legal.iter().collect();
            if listed != want || want.is_empty() {
                return Err(format!(
                    "{me}: lists moves [{}], but the legal moves are [{}]",
                    names::<G>(&pos, &listed),
                    names::<G>(&pos, &want)
                ));
            }
            for (mv, child) in n.edges() {
                check_edge::<G>(rec, i, at, &pos, Move(mv), child, places)?;
            }
        }
    }
    Ok(())
}

/// Replays `mv` from node `i` (at `at`, about `pos`): node `child` is
/// placed at its result, and its threshold must give what node `i` needs
/// (the parent module's rules).
fn check_edge<G: Game>(
    rec: &Records,
    i: usize,
    at: Place,
    pos: &Position,
    mv: Move,
    child: u32,
    places: &mut Places,
) -> Result<(), String> {
    let ct = rec.node(child as usize).t;
    let it = rec.node(i).t;
    let played = G::play_unchecked(pos, mv);
    let name = format_move::<G>(pos, mv);
    let me = format!("claim {}", describe(at, it));
    let t = it as i32;
    // A capture starts a stretch (its own w); a quiet move continues this
    // one, seen by the other player. need: what the move is worth by the
    // child's claim; want: the child's threshold that gives exactly t.
    let (w, need, want) = if played.captured > 0 {
        (
            rec.head.rule.w::<G>(&played.pos),
            capture_value(played.captured, ct as i32), // c − t(child)
            capture_value(played.captured, t),
        )
    } else {
        (-at.w, -(ct as i32), -t)
    };
    let there = Place {
        board: played.pos.pack_board().0,
        w,
        claim: at.claim.opposite(),
    };
    // The child's claim must give the parent's: for ≥ the move is worth at
    // least t (need ≥ t); for ≤ at most t (need ≤ t).
    if !at.claim.holds(need, t) {
        return Err(format!(
            "{me}: move {name} needs child node {child} to claim value {} {want} or {} \
             (so that the move is worth {} {t}), but it claims {}",
            there.claim.symbol(),
            match there.claim {
                Claim::AtLeast => "more",
                Claim::AtMost => "less",
            },
            at.claim.symbol(),
            describe(there, ct)
        ));
    }
    place::<G>(rec, places, child, there).map_err(|e| format!("{me}: move {name}: {e}"))
}

/// Rejects a cycle through a node whose claim endless play does not meet
/// (`unsafe_nodes`). Thresholds never drop along an edge (seen by the
/// prover) and `w` is the stretch's, so every node of a cycle has the same
/// claim: a cycle through one such node is a cycle of such nodes, found by
/// a depth-first search over them alone (its stack 5 bytes a node).
fn check_cycles(rec: &Records, unsafe_nodes: &[bool], w: &[i8]) -> Result<(), Rejected> {
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; rec.len()];
    // The path: nodes and, for each, its next edge to follow.
    let (mut path, mut next): (Vec<u32>, Vec<u8>) = (Vec::new(), Vec::new());
    for start in (0..rec.len()).filter(|&i| unsafe_nodes[i]) {
        if state[start] != 0 {
            continue;
        }
        state[start] = 1;
        path.push(start as u32);
        next.push(0);
        while let (Some(&at), Some(k)) = (path.last(), next.last_mut()) {
            let edge = rec.node(at as usize).edges().nth(*k as usize);
            *k = k.saturating_add(1);
            match edge {
                Some((_, c)) if unsafe_nodes[c as usize] => match state[c as usize] {
                    0 => {
                        state[c as usize] = 1;
                        path.push(c);
                        next.push(0);
                    }
                    1 => {
                        return Err(bad(
                            c as usize,
                            format!(
                                "it lies on a quiet cycle (back from node {at}), but endless \
                                 play scores w = {}, which does not meet its claim value {} {}: \
                                 a claim that is not loop-safe needs an acyclic proof",
                                w[c as usize],
                                // A node on a cycle has moves: one (≥) or all (≤).
                                if matches!(rec.node(c as usize).proof, ProofRef::All(_)) {
                                    "≤"
                                } else {
                                    "≥"
                                },
                                rec.node(c as usize).t
                            ),
                        ));
                    }
                    _ => {}
                },
                Some(_) => {}
                None => {
                    state[at as usize] = 2;
                    path.pop();
                    next.pop();
                }
            }
        }
    }
    Ok(())
}

/// Nodes that lie on some cycle (for the report): Kahn's algorithm removes
/// every node not on or after a cycle (by in-degree), then, backwards,
/// every node not on or before one (by the count of living children, with
/// the living edges reversed in one array).
fn count_on_cycles(rec: &Records) -> usize {
    let n = rec.len();
    let mut alive = vec![true; n];
    {
        let mut deg = vec![0u32; n];
        for i in 0..n {
            for (_, c) in rec.node(i).edges() {
                deg[c as usize] += 1;
            }
        }
        let mut queue: Vec<u32> = (0..n as u32).filter(|&i| deg[i as usize] == 0).collect();
        while let Some(i) = queue.pop() {
            alive[i as usize] = false;
            for (_, c) in rec.node(i as usize).edges() {
                deg[c as usize] -= 1;
                if deg[c as usize] == 0 {
                    queue.push(c);
                }
            }
        }
    }
    // Living children of each living node, and each node's living parents
    // (start[c]..start[c + 1] in `parents`).
    let mut out = vec![0u8; n];
    let mut start = vec![0u32; n + 1];
    for i in (0..n).filter(|&i| alive[i]) {
        for (_, c) in rec.node(i).edges().filter(|&(_, c)| alive[c as usize]) {
            out[i] += 1;
            start[c as usize + 1] += 1;
        }
    }
    for c in 0..n {
        start[c + 1] += start[c];
    }
    let mut parents = vec![0u32; start[n] as usize];
    for i in (0..n).filter(|&i| alive[i]) {
        for (_, c) in rec.node(i).edges().filter(|&(_, c)| alive[c as usize]) {
            parents[start[c as usize] as usize] = i as u32;
            start[c as usize] += 1;
        }
    }
    // Each start[c] is now c's end, the start of c + 1.
    for c in (1..=n).rev() {
        start[c] = start[c - 1];
    }
    start[0] = 0;
    let mut queue: Vec<u32> = (0..n as u32)
        .filter(|&i| alive[i as usize] && out[i as usize] == 0)
        .collect();
    while let Some(i) = queue.pop() {
        alive[i as usize] = false;
        for &p in &parents[start[i as usize] as usize..start[i as usize + 1] as usize] {
            if alive[p as usize] {
                out[p as usize] -= 1;
                if out[p as usize] == 0 {
                    queue.push(p);
                }
            }
        }
    }
    alive.iter().filter(|&&a| a).count()
}

/// A node's claim, as in "it claims value ≥ 2 (w = 0)".
fn describe(at: Place, t: i8) -> String {
    format!("value {} {t} (w = {})", at.claim.symbol(), at.w)
}

/// A place's claim direction and `w`, as in "with a ≥ claim and w = 0".
fn describe_place(at: Place) -> String {
    format!("a {} claim and w = {}", at.claim.symbol(), at.w)
}

fn describe_board<G: Game>(board: u128) -> String {
    format!("board {}", format_board::<G>(&Packed(board).unpack()))
}

fn names<G: Game>(pos: &Position, moves: &[Move]) -> String {
    let v: Vec<String> = moves.iter().map(|&m| format_move::<G>(pos, m)).collect();
    v.join(" ")
}

pub use super::sums::{
    file_sha256, hex, level_sha256, listed, parse_checksum_list, read_checksum_list, sha256,
    tables_status, ChecksumList, ListError, ListFileError, Listed, TablesStatus, MAX_LIST_BYTES,
};
