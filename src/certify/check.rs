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
//! Then it reports whether the table levels it read are the files recorded
//! in `results/tables-checksums.txt` (SHA-256, which `adji tables verify`
//! checked in full when they were recorded).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::game::{Game, GameId, Move, Packed, Position};
use crate::notation::{format_board, format_move};
use crate::rules::RuleSet;
use crate::tables::format::{file_name, level_path};
use crate::tables::locate::level_source;
use crate::tables::shard::stream_level;
use crate::tables::{TableError, TableSet};
use crate::value::{capture_value, LoopRule};

use super::{children, Certificate, Claim, Node, Proof};

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

/// Checks a decoded certificate against the tables of `dir`.
///
/// # Errors
/// [`Rejected`], naming the first bad node, when anything does not hold,
/// or when the tables cannot be opened.
pub fn check(cert: &Certificate, dir: &Path) -> Result<Accepted, Rejected> {
    crate::with_rules!(cert.rules, check_game(cert, dir))
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

/// Each node's place, once a parent (or the header) has placed it, with
/// the node that did (`None`: the header).
type Places = Vec<Option<(Place, Option<u32>)>>;

fn check_game<G: Game>(cert: &Certificate, dir: &Path) -> Result<Accepted, Rejected> {
    let top = cert
        .nodes
        .iter()
        .filter_map(|n| match n.proof {
            Proof::Table { level, .. } => Some(level as u32),
            _ => None,
        })
        .max();
    let tables = match top {
        // Opened for the certificate's rule set and loop rule only: files of
        // any other are refused by the reader (named in its error).
        Some(top) => TableSet::open::<G>(dir, cert.rule, top).map_err(|e| Rejected {
            node: None,
            what: format!("tables: {e}"),
        })?,
        None => TableSet::empty(G::RULES, cert.rule),
    };
    let mut places: Places = vec![None; cert.nodes.len()];
    place_roots::<G>(cert, &mut places)?;
    let mut acc = Accepted {
        nodes: cert.nodes.len(),
        table_leaves: 0,
        end_leaves: 0,
        on_cycles: 0,
        levels: Vec::new(),
    };
    let mut levels = BTreeSet::new();
    for (i, n) in cert.nodes.iter().enumerate() {
        let (at, _) = places[i].ok_or_else(|| {
            bad(
                i,
                "is neither a root node nor a child of a node stored before it".into(),
            )
        })?;
        check_node::<G>(cert, &tables, i, at, &mut places).map_err(|e| bad(i, e))?;
        match n.proof {
            Proof::Table { level, .. } => {
                acc.table_leaves += 1;
                levels.insert(level as u32);
            }
            Proof::End => acc.end_leaves += 1,
            _ => {}
        }
    }
    let places: Vec<Place> = places.into_iter().flatten().map(|(p, _)| p).collect();
    acc.on_cycles = check_cycles(&cert.nodes, &places)?;
    acc.levels = levels.into_iter().collect();
    Ok(acc)
}

/// Places the root nodes: `≥ v` and `≤ v` about the root as a stretch
/// start, or, with a first move, what the move's value needs of its child.
fn place_roots<G: Game>(cert: &Certificate, places: &mut Places) -> Result<(), Rejected> {
    let root = cert.root.unpack();
    let header = |what: String| Rejected { node: None, what };
    if !is_position::<G>(&root) || root.pack() != cert.root {
        return Err(header(format!(
            "the root {:#x} is not a position of {}",
            cert.root.0,
            G::ID
        )));
    }
    let v = cert.value;
    let (board, w, at_least, at_most) = match cert.first {
        None => (
            root,
            cert.rule.w::<G>(&root),
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
                (cert.rule.w::<G>(&p.pos), capture_value(p.captured, v))
            } else {
                (-cert.rule.w::<G>(&root), -v)
            };
            (p.pos, w, (Claim::AtMost, need), (Claim::AtLeast, need))
        }
    };
    let board = board.pack_board().0;
    for (id, (claim, t)) in [(cert.at_least, at_least), (cert.at_most, at_most)] {
        let n = &cert.nodes[id as usize];
        let at = Place { board, w, claim };
        if n.t as i32 != t {
            return Err(bad(
                id as usize,
                format!(
                    "a root node must claim value {} {t} for {}; it claims {}",
                    claim.symbol(),
                    describe_board::<G>(board),
                    describe(at, n.t)
                ),
            ));
        }
        place(places, id, at, None).map_err(|e| bad(id as usize, e))?;
    }
    Ok(())
}

/// Places node `child` at `at`, or checks that it is placed there already.
fn place(places: &mut Places, child: u32, at: Place, by: Option<u32>) -> Result<(), String> {
    match places[child as usize] {
        None => {
            places[child as usize] = Some((at, by));
            Ok(())
        }
        Some((was, _)) if was == at => Ok(()),
        Some((was, first)) => Err(format!(
            "node {child} is reached here as {} of board {:#x}, but {} as {} of board {:#x}",
            describe_place(at),
            at.board,
            first.map_or("the header places it".into(), |p| format!(
                "node {p} reaches it"
            )),
            describe_place(was),
            was.board
        )),
    }
}

/// A packed board of the game: pits beyond the game's zero, no more seeds
/// than the game has, and no opening phase where the game has none.
fn is_position<G: Game>(pos: &Position) -> bool {
    pos.pits[G::PITS..].iter().all(|&x| x == 0)
        && pos.level() <= G::TOTAL
        && (G::ID == GameId::AdjiBoto || pos.opening == 0)
}

/// Node `i`'s proof, at its place, placing its children.
fn check_node<G: Game>(
    cert: &Certificate,
    tables: &TableSet,
    i: usize,
    at: Place,
    places: &mut Places,
) -> Result<(), String> {
    let n = &cert.nodes[i];
    let pos = Packed(at.board).unpack();
    let t = n.t as i32;
    let legal = G::legal_moves(&pos);
    let me = describe(at, n.t);
    match &n.proof {
        Proof::End => {
            let split = G::split(&pos);
            if !legal.is_empty() {
                return Err(format!("{me}: a game end, but the game is not over"));
            }
            if !at.claim.holds(split, t) {
                return Err(format!("{me}: the game is over with split {split}"));
            }
        }
        Proof::Table { level, index } => {
            let (level, index) = (*level as u32, *index);
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
            let b = table.bounds(index as usize);
            let v = b.value(at.w);
            if !at.claim.holds(v, t) {
                return Err(format!(
                    "{me}: table entry {level}/{index} has lo {} hi {}, so value {v} with w = {}",
                    b.lo, b.hi, at.w
                ));
            }
        }
        Proof::One { mv, child } => {
            if at.claim != Claim::AtLeast {
                return Err(format!("{me}: one move proves only a ≥ claim"));
            }
            if !legal.contains(Move(*mv)) {
                return Err(format!("{me}: move {mv} is not legal"));
            }
            check_edge::<G>(cert, i, at, &pos, Move(*mv), *child, places)?;
        }
        Proof::All(moves) => {
            if at.claim != Claim::AtMost {
                return Err(format!("{me}: every move proves only a ≤ claim"));
            }
            let listed: Vec<Move> = moves.iter().map(|&(m, _)| Move(m)).collect();
            let want: Vec<Move> = legal.iter().collect();
            if listed != want || want.is_empty() {
                return Err(format!(
                    "{me}: lists moves [{}], but the legal moves are [{}]",
                    names::<G>(&pos, &listed),
                    names::<G>(&pos, &want)
                ));
            }
            for &(mv, child) in moves {
                check_edge::<G>(cert, i, at, &pos, Move(mv), child, places)?;
            }
        }
    }
    Ok(())
}

/// Replays `mv` from node `i` (at `at`, about `pos`): node `child` is
/// placed at its result, and its threshold must give what node `i` needs
/// (the parent module's rules).
fn check_edge<G: Game>(
    cert: &Certificate,
    i: usize,
    at: Place,
    pos: &Position,
    mv: Move,
    child: u32,
    places: &mut Places,
) -> Result<(), String> {
    let c = &cert.nodes[child as usize];
    let played = G::play_unchecked(pos, mv);
    let name = format_move::<G>(pos, mv);
    let me = describe(at, cert.nodes[i].t);
    // A capture starts a stretch (its own w); a quiet move continues this
    // one, seen by the other player.
    let (w, need) = if played.captured > 0 {
        let child_t = capture_value(played.captured, c.t as i32); // c − t(child)
        (cert.rule.w::<G>(&played.pos), child_t)
    } else {
        (-at.w, -(c.t as i32))
    };
    let there = Place {
        board: played.pos.pack_board().0,
        w,
        claim: at.claim.opposite(),
    };
    // The child's claim must give the parent's: for ≥ the move is worth at
    // least t (need ≥ t); for ≤ at most t (need ≤ t).
    let t = cert.nodes[i].t as i32;
    if !at.claim.holds(need, t) {
        return Err(format!(
            "{me}: move {name} needs child node {child} to claim {} with w = {w} (a move \
             worth {} {t}), but it claims {}",
            there.claim.symbol(),
            at.claim.symbol(),
            describe(there, c.t)
        ));
    }
    place(places, child, there, Some(i as u32)).map_err(|e| format!("{me}: move {name}: {e}"))
}

/// Rejects a cycle through a node whose claim endless play does not meet.
/// Thresholds never drop along an edge (seen by the prover) and `w` is the
/// stretch's, so every node of a cycle has the same claim: a cycle through
/// one such node is a cycle of such nodes, found by a depth-first search
/// over them alone. Returns the number of nodes on cycles (all loop-safe).
fn check_cycles(nodes: &[Node], places: &[Place]) -> Result<usize, Rejected> {
    let unsafe_node = |i: usize| {
        let at = places[i];
        !at.claim.loop_safe(at.w, nodes[i].t as i32)
    };
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; nodes.len()];
    for start in (0..nodes.len()).filter(|&i| unsafe_node(i)) {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<u32>)> = vec![(start, children(&nodes[start]).collect())];
        state[start] = 1;
        while let Some((at, rest)) = stack.last_mut() {
            let at = *at;
            match rest.pop() {
                Some(c) if unsafe_node(c as usize) => match state[c as usize] {
                    0 => {
                        state[c as usize] = 1;
                        stack.push((c as usize, children(&nodes[c as usize]).collect()));
                    }
                    1 => {
                        return Err(bad(
                            c as usize,
                            format!(
                                "{} lies on a quiet cycle (back from node {at}), but endless \
                                 play scores w = {}, which does not meet its claim: a claim \
                                 that is not loop-safe needs an acyclic proof",
                                describe(places[c as usize], nodes[c as usize].t),
                                places[c as usize].w
                            ),
                        ));
                    }
                    _ => {}
                },
                Some(_) => {}
                None => {
                    state[at] = 2;
                    stack.pop();
                }
            }
        }
    }
    Ok(count_on_cycles(nodes))
}

/// Nodes that lie on some cycle (for the report): Kahn's algorithm removes
/// every node not on or after a cycle, then, backwards, every node not on
/// or before one.
fn count_on_cycles(nodes: &[Node]) -> usize {
    let n = nodes.len();
    let mut alive = vec![true; n];
    for forward in [true, false] {
        let mut deg = vec![0u32; n];
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, node) in nodes.iter().enumerate() {
            for c in children(node).filter(|&c| alive[i] && alive[c as usize]) {
                let (from, to) = if forward {
                    (i, c as usize)
                } else {
                    (c as usize, i)
                };
                deg[to] += 1;
                edges[from].push(to as u32);
            }
        }
        let mut queue: Vec<usize> = (0..n).filter(|&i| alive[i] && deg[i] == 0).collect();
        while let Some(i) = queue.pop() {
            alive[i] = false;
            for &c in &edges[i] {
                deg[c as usize] -= 1;
                if deg[c as usize] == 0 {
                    queue.push(c as usize);
                }
            }
        }
    }
    alive.iter().filter(|&&a| a).count()
}

fn describe(at: Place, t: i8) -> String {
    format!("claim value {} {t} (w = {})", at.claim.symbol(), at.w)
}

fn describe_place(at: Place) -> String {
    format!("claim {} (w = {})", at.claim.symbol(), at.w)
}

fn describe_board<G: Game>(board: u128) -> String {
    format!("board {}", format_board::<G>(&Packed(board).unpack()))
}

fn names<G: Game>(pos: &Position, moves: &[Move]) -> String {
    let v: Vec<String> = moves.iter().map(|&m| format_move::<G>(pos, m)).collect();
    v.join(" ")
}

/// Whether the tables are the recorded, fully verified files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablesStatus {
    /// No table leaf: nothing rests on the tables.
    Unused,
    /// Every level read has the SHA-256 recorded for it.
    Verified,
    /// Some level is not recorded, or differs (the file names).
    NotVerified(Vec<String>),
}

/// A checksum list in `sha256sum`'s format, as
/// `results/tables-checksums.txt` is: file name → lower-case hexadecimal
/// SHA-256. Read with [`parse_checksum_list`], which both `adji tables
/// checksum --check` and `adji certify check` use.
pub type ChecksumList = HashMap<String, String>;

/// A line of a checksum list that [`parse_checksum_list`] refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// Not `HEX  NAME` (64 hexadecimal digits, two spaces or a space and
    /// `*`, a file name).
    #[error(
        "line {line}: expected 64 hexadecimal digits, two spaces (or a space and *) \
         and a file name, found '{text}'"
    )]
    Malformed {
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// A file listed twice with different sums: the list contradicts itself.
    #[error("line {line}: {name} is listed again with another SHA-256 (first on line {first})")]
    Contradicts {
        /// The second line's number, from 1.
        line: usize,
        /// The first line's number.
        first: usize,
        /// The file name.
        name: String,
    },
}

/// Parses a checksum list: `HEX  NAME` lines (`HEX *NAME` too, as
/// `sha256sum -b` writes); blank lines and lines starting with `#` are
/// skipped. Any other line is an error naming it, so a list that cannot
/// be read whole verifies nothing; so is a name listed twice with
/// different sums (listed twice with the same sum is accepted).
///
/// # Errors
/// The first line refused, as a [`ListError`].
pub fn parse_checksum_list(text: &str) -> Result<ChecksumList, ListError> {
    // name → (sum, the line that first listed it)
    let mut list: HashMap<String, (String, usize)> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (sum, name) = split_list_line(line).ok_or_else(|| ListError::Malformed {
            line: i + 1,
            text: line.to_string(),
        })?;
        let (want, first) = list
            .entry(name.to_string())
            .or_insert_with(|| (sum.to_ascii_lowercase(), i + 1));
        if !want.eq_ignore_ascii_case(sum) {
            return Err(ListError::Contradicts {
                line: i + 1,
                first: *first,
                name: name.to_string(),
            });
        }
    }
    Ok(list
        .into_iter()
        .map(|(name, (sum, _))| (name, sum))
        .collect())
}

/// The largest checksum list read (a line a level file: a few KiB).
pub const MAX_LIST_BYTES: u64 = 1 << 20;

/// Why a checksum list file cannot be read whole.
#[derive(Debug, thiserror::Error)]
pub enum ListFileError {
    /// Not a regular file, too large, or unreadable.
    #[error("{}: {source}", path.display())]
    Io {
        /// The list.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// Not UTF-8 text.
    #[error("{}: not UTF-8 text", path.display())]
    NotUtf8 {
        /// The list.
        path: PathBuf,
    },
    /// A line [`parse_checksum_list`] refuses.
    #[error("{} {source}", path.display())]
    Line {
        /// The list.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: ListError,
    },
}

/// Reads the checksum list at `path` ([`parse_checksum_list`]): a regular
/// file of at most [`MAX_LIST_BYTES`] (a FIFO or device is refused before
/// it is opened, so nothing blocks).
///
/// # Errors
/// A [`ListFileError`] naming the file.
pub fn read_checksum_list(path: &Path) -> Result<ChecksumList, ListFileError> {
    let path_buf = || path.to_path_buf();
    let text = crate::fsutil::read_regular_to_string(path, MAX_LIST_BYTES).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            ListFileError::NotUtf8 { path: path_buf() }
        } else {
            ListFileError::Io {
                path: path_buf(),
                source: e,
            }
        }
    })?;
    parse_checksum_list(&text).map_err(|source| ListFileError::Line {
        path: path_buf(),
        source,
    })
}

/// `(sum, name)` of a well-formed list line, or `None`.
fn split_list_line(line: &str) -> Option<(&str, &str)> {
    let (sum, name) = line.split_once(' ')?;
    let name = name.strip_prefix([' ', '*'])?;
    let hex = sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && !name.is_empty()).then_some((sum, name))
}

/// How a file's SHA-256 stands against a [`ChecksumList`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed<'a> {
    /// Listed with this sum.
    Same,
    /// Listed with another sum (the listed one).
    Differs(&'a str),
    /// Not in the list.
    Unlisted,
}

/// Where `name`, whose SHA-256 is `sum` (hexadecimal), stands in `list`.
pub fn listed<'a>(list: &'a ChecksumList, name: &str, sum: &str) -> Listed<'a> {
    match list.get(name) {
        None => Listed::Unlisted,
        Some(want) if want.eq_ignore_ascii_case(sum) => Listed::Same,
        Some(want) => Listed::Differs(want),
    }
}

/// Compares the SHA-256 of each level file of `levels` in `dir` with the
/// list `recorded` (`results/tables-checksums.txt`, read with
/// [`parse_checksum_list`]). A sharded level (a manifest and shards, no
/// level file) is hashed as the level file its shards merge into
/// ([`level_sha256`]), so the same recorded line verifies it.
///
/// # Errors
/// A [`TableError`] reading a level file or a sharded level's shards.
pub fn tables_status(
    cert: &Certificate,
    dir: &Path,
    levels: &[u32],
    recorded: &ChecksumList,
) -> Result<TablesStatus, TableError> {
    if levels.is_empty() {
        return Ok(TablesStatus::Unused);
    }
    let mut off = Vec::new();
    for &level in levels {
        let name = file_name(cert.rules.tables(), cert.rule, level);
        let sum = hex(&level_sha256(dir, cert.rules, cert.rule, level)?);
        match listed(recorded, &name, &sum) {
            Listed::Same => {}
            Listed::Differs(_) => off.push(format!("{name} (differs from the recorded SHA-256)")),
            Listed::Unlisted => off.push(format!("{name} (not recorded)")),
        }
    }
    Ok(if off.is_empty() {
        TablesStatus::Verified
    } else {
        TablesStatus::NotVerified(off)
    })
}

/// Lower-case hexadecimal of `b` (as `sha256sum` prints a digest).
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// SHA-256 of level `level`'s file in `dir`, or, when the level is
/// sharded there (a manifest, no level file; as every reader takes it),
/// of the level file its shards merge into, streamed from the shards
/// (their checksums checked on the way) without writing it.
///
/// # Errors
/// A [`TableError`] naming the file and what is wrong.
pub fn level_sha256(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<[u8; 32], TableError> {
    use sha2::Digest;
    let rules = rules.tables();
    let source = level_source(dir, rules, rule, level);
    if source == level_path(dir, rules, rule, level) {
        return file_sha256(&source).map_err(|e| TableError::from_open(&source, level, e));
    }
    let mut h = sha2::Sha256::new();
    stream_level(&[dir.to_path_buf()], rules, rule, level, &mut h)?;
    Ok(h.finalize().into())
}

/// SHA-256 of the file at `path`, read in pieces (a level file may be
/// bigger than the memory at hand).
///
/// # Errors
/// An I/O error reading it.
pub fn file_sha256(path: &Path) -> std::io::Result<[u8; 32]> {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut h)?;
    Ok(h.finalize().into())
}

/// SHA-256 of `data` (the `sha2` crate), as `results/tables-checksums.txt`
/// records table files.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(
            hex(&sha256(long)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
    }

    #[test]
    fn a_file_hashed_in_pieces_matches_its_bytes_hashed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // A million bytes, more than one read's buffer.
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert_eq!(file_sha256(&path).unwrap(), sha256(&data));
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(
            hex(&file_sha256(&path).unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    /// The one parser of checksum lists: `sha256sum`'s two forms, comments
    /// and blank lines; every other line refused, naming it; a file listed
    /// twice with different sums refused (the lenient parser `certify
    /// check` had kept the last line, so a wrong first line followed by a
    /// right one verified).
    #[test]
    fn checksum_lists_are_read_whole_or_refused_naming_the_line() {
        let (a, b) = ("ab".repeat(32), "CD".repeat(32));
        let text = format!("# sums\n\n{a}  x.adjt\n{b} *y.adjt  \n{a}  x.adjt\n");
        let list = parse_checksum_list(&text).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(listed(&list, "x.adjt", &a), Listed::Same);
        assert_eq!(listed(&list, "y.adjt", &b.to_lowercase()), Listed::Same);
        assert_eq!(
            listed(&list, "y.adjt", &a),
            Listed::Differs(&"cd".repeat(32))
        );
        assert_eq!(listed(&list, "z.adjt", &a), Listed::Unlisted);
        for bad in [
            "abc  x.adjt".to_string(),
            format!("{a}x.adjt"),
            format!("{a}  "),
            format!("{a}\tx.adjt"),
            format!("{}  x.adjt", "g".repeat(64)),
            "x.adjt".to_string(),
        ] {
            let e = parse_checksum_list(&format!("# c\n{bad}\n")).unwrap_err();
            assert!(
                matches!(e, ListError::Malformed { line: 2, .. }),
                "{bad}: {e}"
            );
            assert!(e.to_string().starts_with("line 2: expected 64"), "{e}");
        }
        let e = parse_checksum_list(&format!("{b}  x.adjt\n\n{a}  x.adjt\n")).unwrap_err();
        let want = "line 3: x.adjt is listed again with another SHA-256 (first on line 1)";
        assert_eq!(e.to_string(), want);
    }
}
