//! Certificates: checkable proofs of a position's value (issue 26).
//!
//! This module owns the certificate's meaning and its file format; the
//! writer ([`write`](mod@write), which uses the search and the tables) and the
//! independent checker ([`check`], which uses only the move rules, the value
//! algebra and a table reader) are its two halves; [`sums`] holds the
//! checksum lists and table hashes by which the checker's user trusts the
//! tables.
//!
//! # What a certificate proves
//!
//! For a position `P`, a game, a rule set and a loop rule, a certificate
//! proves `value(P) ≥ v` and `value(P) ≤ v`, with `value` exactly as the
//! docs/RULES.md §4 defines it: `P` is a stretch start, endless play
//! scores `w = w(P)` (its split under `--loop start`, 0 under `--loop
//! even`), and `value = clamp(w, lo, hi)`. Naming a first move `m`, it
//! proves that move's value instead: `c − value(child)` for a capture of `c`
//! seeds (the child a stretch start), `−value(child)` for a quiet move (the
//! child in `P`'s stretch, `w` negated); its two root nodes are the child's.
//!
//! It relies on the move rules ([`crate::game::Game`]), §4's algebra
//! ([`crate::value`]) and the table entries its leaves name: those are
//! right when the files are the ones `adji tables verify` checked in full
//! (which proves each `lo` the least and each `hi` the greatest fixpoint),
//! which the checker tells by their SHA-256 in a checksum list its user
//! names (such as the repository's `results/tables-checksums.txt`), and
//! only by that.
//!
//! It is a graph of nodes. Each node proves a claim `value ≥ t` or
//! `value ≤ t` about a board (relative to the mover, the side to move
//! cleared: values do not depend on it) in a stretch whose endless play
//! scores `w` for its mover; its value there is `clamp(w, lo, hi)`. The
//! file stores only `t` and the proof: the board, `w` and the claim's
//! direction follow from the parent, by replaying the move from the root
//! (a capture's child starts a stretch, `w` its own; a quiet move's child
//! continues it, `w` negated; a child's claim is the opposite of its
//! parent's). A node proves its claim:
//! - `End`: the game is over; the split satisfies the claim;
//! - `Table`: a table entry named by level and index (the board's own);
//!   `clamp(w, lo, hi)` from the entry satisfies the claim (the value of
//!   any position of a stretch scored `w`, as for a quiet move's child);
//! - `One` (claims `≥ t` only): one legal move and the node proving it: a
//!   capture of `c` seeds into a child claiming `value ≤ c − t` or less; a
//!   quiet move into a child claiming `value ≤ −t` or less;
//! - `All` (claims `≤ t` only): every legal move, in order, each with the
//!   node proving the mirror claim (`≥ c − t` or more after a capture, `≥ −t`
//!   or more after a quiet move).
//!
//! A node shared by several parents must be reached as the same board, `w`
//! and claim from each. Every node but the two root nodes (which the header
//! places) is a child of a node stored before it, so one pass in file
//! order places every node (a depth-first numbering from the roots does
//! this).
//!
//! # Cycles (docs/RULES.md §4)
//!
//! Quiet moves may lead back to a node, so the graph may have cycles; they
//! stay inside one stretch (a capture lowers the level). In the prover's
//! terms (the mover for `≥`, the other player for `≤`) a node's threshold
//! never drops along an edge and its `w` is the stretch's, so all nodes on a
//! cycle share one claim. What a cycle proves follows from
//! `clamp(w, lo, hi)`:
//!
//! | claim        | with          | means   | fixpoint | proof must be |
//! |--------------|---------------|---------|----------|---------------|
//! | `value ≥ t`  | `w ≥ t`       | `hi ≥ t`| greatest | may cycle     |
//! | `value ≥ t`  | `w < t`       | `lo ≥ t`| least    | acyclic       |
//! | `value ≤ t`  | `w ≤ t`       | `lo ≤ t`| least    | may cycle     |
//! | `value ≤ t`  | `w > t`       | `hi ≤ t`| greatest | acyclic       |
//!
//! A claim is *loop-safe* when endless play (worth `w`) satisfies it. A
//! least fixpoint is bounded from below only by induction (an acyclic proof:
//! every play leaves the stretch through a proved exit), and from above by
//! any set closed under its equations (a cycle is such a set); the greatest
//! fixpoint the other way round. So the checker accepts a cycle exactly when
//! its nodes are loop-safe, and requires the nodes that are not to form an
//! acyclic graph. Equivalently: following the certificate, the prover either
//! reaches a proved leaf or plays endlessly in one stretch, which scores `w`,
//! and that meets the claim only where the claim is loop-safe.
//!
//! # File format (version 2), all integers little-endian
//!
//! ```text
//! offset  size  field
//!   0       8   magic "ADJICERT"
//!   8       2   format version, u16 (2)
//!  10       1   game (crate::game::GameId::code)
//!  11       1   rule set (crate::rules::RuleSet::code)
//!  12       1   loop rule (crate::value::LoopRule::code)
//!  13       1   first move m (a relative pit, 255 for the pass), or 254: none
//!  14      16   root position, packed (crate::game::Packed, side included)
//!  30       2   v, i16
//!  32       4   node count N, u32
//!  36       4   node proving value ≥ v, u32 (of the root, or of move m)
//!  40       4   node proving value ≤ v, u32
//!  44       …   N node records
//!  end−4    4   CRC-32 of every byte before it
//! ```
//!
//! A node record: threshold `t` i8, kind u8, then by kind:
//! `0 End`: nothing; `1 Table`: level u8, index u64;
//! `2 One`: move u8, child u32; `3 All`: count u8, then count × (move u8,
//! child u32). Moves are relative pits, 255 for the pass. (Version 1 also
//! stored each node's board, `w` and claim: 18 bytes more a node, all of
//! them determined by the root and the moves.)

pub mod check;
pub mod sums;
pub mod write;

use crate::game::{GameId, Packed};
use crate::rules::RuleSet;
use crate::value::LoopRule;

/// File magic.
pub const MAGIC: &[u8; 8] = b"ADJICERT";
/// Format version.
pub const VERSION: u16 = 2;
/// The header's first-move byte when the certificate is about the root.
pub const NO_MOVE: u8 = 254;
/// Header length in bytes.
pub const HEADER_LEN: usize = 44;

/// The direction of a node's claim about its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Claim {
    /// `value ≥ t`.
    AtLeast,
    /// `value ≤ t`.
    AtMost,
}

impl Claim {
    /// Whether `value` satisfies the claim with threshold `t`.
    pub fn holds(self, value: i32, t: i32) -> bool {
        match self {
            Claim::AtLeast => value >= t,
            Claim::AtMost => value <= t,
        }
    }

    /// `≥` or `≤`.
    pub fn symbol(self) -> &'static str {
        match self {
            Claim::AtLeast => "≥",
            Claim::AtMost => "≤",
        }
    }

    /// The other direction: a child's claim when this is its parent's.
    pub fn opposite(self) -> Claim {
        match self {
            Claim::AtLeast => Claim::AtMost,
            Claim::AtMost => Claim::AtLeast,
        }
    }

    /// Whether endless play, worth `w` to the mover, satisfies the claim
    /// (see the module documentation: only such claims may rest on a cycle).
    pub fn loop_safe(self, w: i32, t: i32) -> bool {
        self.holds(w, t)
    }
}

/// How a node proves its claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// The game is over at the node.
    End,
    /// An endgame table entry.
    Table {
        /// Level (seeds on the board).
        level: u8,
        /// Index (colex rank) in the level.
        index: u64,
    },
    /// One move (for `≥`): the move and the node of its child.
    One {
        /// The move.
        mv: u8,
        /// The child's node.
        child: u32,
    },
    /// Every legal move (for `≤`), in the order the rules list them.
    All(Vec<(u8, u32)>),
}

/// One node of a certificate: its claim's threshold and its proof (the
/// board, `w` and the claim's direction follow from its parent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The claim's threshold.
    pub t: i8,
    /// How the claim is proved.
    pub proof: Proof,
}

/// A certificate: what it is about, and its nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The rule set (and so the game).
    pub rules: RuleSet,
    /// The loop rule.
    pub rule: LoopRule,
    /// The root position (side to move included).
    pub root: Packed,
    /// The first move whose value is proved, or `None` for the root's.
    pub first: Option<u8>,
    /// The value proved.
    pub value: i32,
    /// The node proving `value ≥ v`.
    pub at_least: u32,
    /// The node proving `value ≤ v`.
    pub at_most: u32,
    /// The nodes.
    pub nodes: Vec<Node>,
}

/// A certificate file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Shorter than its header and checksum.
    #[error("truncated: {0} bytes, shorter than a header and checksum")]
    Short(usize),
    /// Not a certificate.
    #[error("not a certificate (bad magic)")]
    Magic,
    /// Another format version.
    #[error("format version {0}, expected {VERSION}")]
    Version(u16),
    /// The checksum does not match (truncated or altered).
    #[error("checksum mismatch: the file is truncated or altered (stored {stored:08x}, computed {computed:08x})")]
    Checksum {
        /// Stored CRC-32.
        stored: u32,
        /// Computed CRC-32.
        computed: u32,
    },
    /// A header field names no game, rule set or loop rule.
    #[error("bad header: {0}")]
    Header(String),
    /// A node record is malformed.
    #[error("node {node}: {what}")]
    Node {
        /// The node's index.
        node: usize,
        /// What is wrong.
        what: String,
    },
}

impl Certificate {
    /// The game.
    pub fn game(&self) -> GameId {
        self.rules.game()
    }

    /// The file bytes, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER_LEN + 12 * self.nodes.len() + 4);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        let first = self.first.unwrap_or(NO_MOVE);
        b.extend_from_slice(&[
            self.game().code(),
            self.rules.code(),
            self.rule.code(),
            first,
        ]);
        b.extend_from_slice(&self.root.0.to_le_bytes());
        b.extend_from_slice(&(self.value as i16).to_le_bytes());
        b.extend_from_slice(&(self.nodes.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.at_least.to_le_bytes());
        b.extend_from_slice(&self.at_most.to_le_bytes());
        for n in &self.nodes {
            encode_node(n, &mut b);
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Reads a certificate, checking magic, version, checksum, header
    /// fields and every record's shape (not what the records claim: that
    /// is [`check`]'s work). [`Records::parse`] reads the same file
    /// without decoding its nodes, as the checker does.
    ///
    /// # Errors
    /// The first thing wrong, naming the node for a bad record.
    pub fn decode(bytes: &[u8]) -> Result<Certificate, FormatError> {
        let r = Records::parse(bytes)?;
        let h = r.head;
        Ok(Certificate {
            rules: h.rules,
            rule: h.rule,
            root: h.root,
            first: h.first,
            value: h.value,
            at_least: h.at_least,
            at_most: h.at_most,
            nodes: (0..r.len()).map(|i| r.node(i).to_node()).collect(),
        })
    }
}

/// A certificate's header: everything but its nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The rule set (and so the game).
    pub rules: RuleSet,
    /// The loop rule.
    pub rule: LoopRule,
    /// The root position (side to move included).
    pub root: Packed,
    /// The first move whose value is proved, or `None` for the root's.
    pub first: Option<u8>,
    /// The value proved.
    pub value: i32,
    /// The node proving `value ≥ v`.
    pub at_least: u32,
    /// The node proving `value ≤ v`.
    pub at_most: u32,
}

impl Head {
    /// The game.
    pub fn game(&self) -> GameId {
        self.rules.game()
    }
}

/// A certificate file read for checking: its header, and its node records
/// left in the file's bytes, found by their offsets (4 bytes a node). So a
/// check holds the file, 4 bytes a node here and a few more in the checker
/// ([`check::check_records`]): within 4 times the file's size, since a
/// node takes at least 7 bytes of it (a record of 2 bytes or more, and,
/// but for the two root nodes, a 5-byte edge of a parent's).
#[derive(Clone, Debug)]
pub struct Records<'a> {
    /// The header.
    pub head: Head,
    body: &'a [u8],
    offsets: Vec<u32>,
}

/// A node's proof as its record holds it ([`Records::node`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofRef<'a> {
    /// The game is over at the node.
    End,
    /// An endgame table entry: level and index.
    Table {
        /// Level (seeds on the board).
        level: u8,
        /// Index (colex rank) in the level.
        index: u64,
    },
    /// One move (for `≥`) and the node of its child.
    One {
        /// The move.
        mv: u8,
        /// The child's node.
        child: u32,
    },
    /// Every legal move (for `≤`): count × (move u8, child u32 LE).
    All(&'a [u8]),
}

/// A node as its record holds it ([`Records::node`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRef<'a> {
    /// The claim's threshold.
    pub t: i8,
    /// How the claim is proved.
    pub proof: ProofRef<'a>,
}

impl<'a> NodeRef<'a> {
    /// The nodes its proof refers to, with their moves, in order.
    pub fn edges(self) -> impl Iterator<Item = (u8, u32)> + 'a {
        let (one, all): (Option<(u8, u32)>, &'a [u8]) = match self.proof {
            ProofRef::One { mv, child } => (Some((mv, child)), &[]),
            ProofRef::All(b) => (None, b),
            _ => (None, &[]),
        };
        one.into_iter().chain(all.chunks_exact(5).map(|c| {
            (
                c[0],
                u32::from_le_bytes(c[1..5].try_into().expect("5-byte edge")),
            )
        }))
    }

    /// The decoded node.
    pub fn to_node(&self) -> Node {
        let proof = match self.proof {
            ProofRef::End => Proof::End,
            ProofRef::Table { level, index } => Proof::Table { level, index },
            ProofRef::One { mv, child } => Proof::One { mv, child },
            ProofRef::All(_) => Proof::All(self.edges().collect()),
        };
        Node { t: self.t, proof }
    }
}

impl<'a> Records<'a> {
    /// Reads a certificate file's header and finds its node records,
    /// checking magic, version, checksum, header fields and every record's
    /// shape, as [`Certificate::decode`] does. A node count that the file's
    /// bytes cannot hold is refused before anything is allocated for it.
    ///
    /// # Errors
    /// The first thing wrong, naming the node for a bad record.
    pub fn parse(bytes: &'a [u8]) -> Result<Records<'a>, FormatError> {
        if bytes.len() < HEADER_LEN + 4 {
            return Err(FormatError::Short(bytes.len()));
        }
        if &bytes[..8] != MAGIC {
            return Err(FormatError::Magic);
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(FormatError::Version(version));
        }
        if bytes.len() > MAX_BYTES {
            return Err(FormatError::Header(format!(
                "{} bytes, more than a certificate may hold ({MAX_BYTES})",
                bytes.len()
            )));
        }
        // The records first, so that a cut names the first node it lost;
        // then the checksum over everything before its four bytes.
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let mut r = Reader { b: body, at: 14 };
        let root = Packed(r.u128().expect("header length checked"));
        let value = i16::from_le_bytes(r.take(2).expect("header").try_into().expect("2")) as i32;
        let count = r.u32().expect("header") as usize;
        let at_least = r.u32().expect("header");
        let at_most = r.u32().expect("header");
        // Each node is a record of 2 bytes or more and, but for the two
        // root nodes, the child of a 5-byte edge in another's record.
        let room = (body.len() - HEADER_LEN + 10) / 7;
        let mut offsets = Vec::with_capacity(if count <= room { count } else { 0 });
        for i in 0..count {
            let at = r.at;
            skip_node(&mut r).ok_or_else(|| FormatError::Node {
                node: i,
                what: format!(
                    "record malformed or cut short at byte {} (the file holds {} bytes for {count} nodes)",
                    r.at,
                    bytes.len()
                ),
            })?;
            if count <= room {
                offsets.push(at as u32);
            }
        }
        if r.at != body.len() {
            return Err(FormatError::Header(format!(
                "{} bytes after the last node",
                body.len() - r.at
            )));
        }
        let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
        let computed = crc32fast::hash(body);
        if stored != computed {
            return Err(FormatError::Checksum { stored, computed });
        }
        if count > room {
            return Err(FormatError::Header(format!(
                "{count} nodes, more than its {} bytes of records can prove (at most {room}: a \
                 record of 2 bytes or more each, and a 5-byte edge to each but the root nodes)",
                body.len() - HEADER_LEN
            )));
        }
        let game = GameId::from_code(body[10])
            .ok_or_else(|| FormatError::Header(format!("unknown game code {}", body[10])))?;
        let rules = RuleSet::from_code(game, body[11]).ok_or_else(|| {
            FormatError::Header(format!("unknown rule set code {} for {game}", body[11]))
        })?;
        let rule = LoopRule::from_code(body[12])
            .ok_or_else(|| FormatError::Header(format!("unknown loop rule code {}", body[12])))?;
        let rec = Records {
            head: Head {
                rules,
                rule,
                root,
                first: (body[13] != NO_MOVE).then_some(body[13]),
                value,
                at_least,
                at_most,
            },
            body,
            offsets,
        };
        for i in 0..count {
            if let Some((_, c)) = rec.node(i).edges().find(|&(_, c)| c as usize >= count) {
                return Err(FormatError::Node {
                    node: i,
                    what: format!("child {c} does not exist ({count} nodes)"),
                });
            }
        }
        for (name, id) in [("≥", at_least), ("≤", at_most)] {
            if id as usize >= count {
                return Err(FormatError::Header(format!(
                    "the root's {name} node {id} does not exist ({count} nodes)"
                )));
            }
        }
        Ok(rec)
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether there are no nodes (never, once parsed: the root nodes exist).
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Node `i` (`i < len()`), read from its record.
    pub fn node(&self, i: usize) -> NodeRef<'a> {
        let b = &self.body[self.offsets[i] as usize..];
        let proof = match b[1] {
            0 => ProofRef::End,
            1 => ProofRef::Table {
                level: b[2],
                index: u64::from_le_bytes(b[3..11].try_into().expect("parsed")),
            },
            2 => ProofRef::One {
                mv: b[2],
                child: u32::from_le_bytes(b[3..7].try_into().expect("parsed")),
            },
            _ => ProofRef::All(&b[3..3 + 5 * b[2] as usize]),
        };
        NodeRef {
            t: b[0] as i8,
            proof,
        }
    }
}

/// The largest certificate file read: node offsets are 32-bit (the
/// largest certificate made, of Adjito's start with tables to 20, has 102
/// MB).
pub const MAX_BYTES: usize = u32::MAX as usize;

/// The nodes a node's proof refers to.
pub fn children(n: &Node) -> impl Iterator<Item = u32> + '_ {
    let (one, all): (Option<u32>, &[(u8, u32)]) = match &n.proof {
        Proof::One { child, .. } => (Some(*child), &[]),
        Proof::All(v) => (None, v.as_slice()),
        _ => (None, &[]),
    };
    one.into_iter().chain(all.iter().map(|&(_, c)| c))
}

fn encode_node(n: &Node, b: &mut Vec<u8>) {
    b.push(n.t as u8);
    match &n.proof {
        Proof::End => b.push(0),
        Proof::Table { level, index } => {
            b.extend_from_slice(&[1, *level]);
            b.extend_from_slice(&index.to_le_bytes());
        }
        Proof::One { mv, child } => {
            b.extend_from_slice(&[2, *mv]);
            b.extend_from_slice(&child.to_le_bytes());
        }
        Proof::All(moves) => {
            b.extend_from_slice(&[3, moves.len() as u8]);
            for &(mv, child) in moves {
                b.push(mv);
                b.extend_from_slice(&child.to_le_bytes());
            }
        }
    }
}

/// Steps over a well-formed node record, or `None`.
fn skip_node(r: &mut Reader) -> Option<()> {
    let [_, kind] = r.take(2)?.try_into().ok()?;
    match kind {
        0 => {}
        1 => {
            r.take(9)?;
        }
        2 => {
            r.take(5)?;
        }
        3 => {
            let count = r.take(1)?[0] as usize;
            r.take(5 * count)?;
        }
        _ => return None,
    }
    Some(())
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
}
