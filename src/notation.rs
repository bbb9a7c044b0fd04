//! Position and move notation (docs/RULES.md §5): parsing and formatting.
//!
//! `TOP/BOTTOM MOVER TOPSTORE-BOTTOMSTORE [PHASE]`, or the word `start`.
//! Every malformed input gets a [`NotationError`] naming the field and what
//! was expected; nothing here panics on any input.

use std::fmt;

use crate::game::{Game, Move, Position, State, MAX_PITS, OPENING_ACTIVE};

/// A malformed position or move string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError {
    /// The field that is wrong (`board`, `top row`, `mover`, `stores`, `phase`, `move`, …).
    pub field: &'static str,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for NotationError {}

fn err(field: &'static str, message: impl Into<String>) -> NotationError {
    NotationError {
        field,
        message: message.into(),
    }
}

/// How strict [`parse_state`] is about the stores field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stores {
    /// The stores field is required (full positions).
    Required,
    /// The stores field may be left out (endgame-table queries); the
    /// captured seeds are then whatever makes up the total.
    Optional,
}

/// Shortens user input for error messages.
fn show(s: &str) -> String {
    let t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        format!("'{t}…'")
    } else {
        format!("'{t}'")
    }
}

fn parse_row<G: Game>(s: &str, field: &'static str) -> Result<Vec<u8>, NotationError> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != G::HALF {
        return Err(err(
            field,
            format!(
                "expected {} comma-separated pit counts, found {} in {}",
                G::HALF,
                parts.len(),
                show(s)
            ),
        ));
    }
    parts
        .iter()
        .map(|p| {
            p.trim()
                .parse::<u16>()
                .ok()
                .filter(|&v| v as u32 <= G::TOTAL)
                .map(|v| v as u8)
                .ok_or_else(|| {
                    err(
                        field,
                        format!(
                            "expected a seed count from 0 to {}, found {}",
                            G::TOTAL,
                            show(p)
                        ),
                    )
                })
        })
        .collect()
}

/// Parses a position in the notation of game `G`.
///
/// # Errors
/// A [`NotationError`] naming the first malformed field.
pub fn parse_state<G: Game>(s: &str, stores_mode: Stores) -> Result<State, NotationError> {
    parse_state_of::<G>(s, stores_mode).map_err(|mut e| {
        if let Some(other) = other_game_reading::<G>(s) {
            e.message.push_str(&format!(
                " (this reads as a position of {other}: is the game {other}?)"
            ));
        }
        e
    })
}

/// The other game whose notation `s` is, when it is not `G`'s: what a
/// refusal suggests.
fn other_game_reading<G: Game>(s: &str) -> Option<crate::rules::GameId> {
    fn reads<H: Game>(s: &str) -> bool {
        parse_state_of::<H>(s, Stores::Optional).is_ok()
    }
    crate::rules::GameId::ALL
        .into_iter()
        .filter(|&g| g != G::ID)
        .find(|&g| crate::with_rules!(crate::rules::RuleSet::default_for(g), reads(s)))
}

/// [`parse_state`] without the suggestion of another game.
fn parse_state_of<G: Game>(s: &str, stores_mode: Stores) -> Result<State, NotationError> {
    let s = s.trim();
    if s == "start" {
        return Ok(State {
            pos: G::start(),
            stores: [0, 0],
        });
    }
    let fields = split_fields::<G>(s)?;
    let abs = parse_board::<G>(fields[0])?;
    let side = parse_mover::<G>(fields.get(1).copied())?;
    let board_total: u32 = abs.iter().map(|&x| x as u32).sum();
    // Stores and phase. With optional stores, a lone phase field is allowed.
    let mut rest = &fields[2..];
    let stores = match rest.first() {
        Some(f) if f.contains('-') => {
            rest = &rest[1..];
            parse_stores::<G>(f, board_total)?
        }
        _ if stores_mode == Stores::Optional => {
            let missing = (G::TOTAL - board_total) as u16;
            [missing - missing / 2, missing / 2]
        }
        Some(f) => {
            return Err(err(
                "stores",
                format!("expected `TOPSTORE-BOTTOMSTORE`, found {}", show(f)),
            ))
        }
        None => {
            return Err(err(
                "stores",
                "missing; expected `TOPSTORE-BOTTOMSTORE`, e.g. `0-0`",
            ))
        }
    };
    let opening = if G::HAS_OPENING {
        let phase = rest
            .first()
            .ok_or_else(|| err("phase", "missing; expected `main` or `opening:PITS`"))?;
        rest = &rest[1..];
        parse_phase::<G>(phase, side)?
    } else {
        0
    };
    if let Some(extra) = rest.first() {
        return Err(err(
            "position",
            format!("unexpected extra field {}", show(extra)),
        ));
    }
    let pos = Position {
        pits: G::to_relative(&abs, side),
        side,
        opening,
    };
    Ok(State { pos, stores })
}

/// The space-separated fields: at least one, at most the game's number.
fn split_fields<G: Game>(s: &str) -> Result<Vec<&str>, NotationError> {
    let fields: Vec<&str> = s.split_whitespace().collect();
    if fields.is_empty() {
        return Err(err(
            "position",
            "empty; expected `TOP/BOTTOM MOVER TOPSTORE-BOTTOMSTORE` or `start`",
        ));
    }
    let max_fields = if G::HAS_OPENING { 4 } else { 3 };
    if fields.len() > max_fields {
        return Err(err(
            "position",
            format!(
                "expected at most {max_fields} space-separated fields, found {}",
                fields.len()
            ),
        ));
    }
    Ok(fields)
}

/// `TOP/BOTTOM` as an absolute board, at most the game's seeds.
fn parse_board<G: Game>(field: &str) -> Result<[u8; MAX_PITS], NotationError> {
    let (top, bottom) = field.split_once('/').ok_or_else(|| {
        err(
            "board",
            format!("expected `TOP/BOTTOM`, found {}", show(field)),
        )
    })?;
    let top = parse_row::<G>(top, "top row")?;
    let bottom = parse_row::<G>(bottom, "bottom row")?;
    let mut abs = [0u8; MAX_PITS];
    let (s1, s0) = (G::row_start(1), G::row_start(0));
    abs[s1..s1 + G::HALF].copy_from_slice(&top);
    abs[s0..s0 + G::HALF].copy_from_slice(&bottom);
    let board_total: u32 = abs.iter().map(|&x| x as u32).sum();
    if board_total > G::TOTAL {
        return Err(err(
            "board",
            format!(
                "{board_total} seeds on the board, more than the game's {}",
                G::TOTAL
            ),
        ));
    }
    Ok(abs)
}

/// The side to move, from its one-letter name.
fn parse_mover<G: Game>(field: Option<&str>) -> Result<u8, NotationError> {
    let names = format!("`{}` or `{}`", G::side_name(0), G::side_name(1));
    let mover = field.ok_or_else(|| err("mover", format!("missing; expected {names}")))?;
    match mover.chars().collect::<Vec<_>>()[..] {
        [c] if c.eq_ignore_ascii_case(&G::side_name(0)) => Ok(0),
        [c] if c.eq_ignore_ascii_case(&G::side_name(1)) => Ok(1),
        _ => Err(err(
            "mover",
            format!("expected {names}, found {}", show(mover)),
        )),
    }
}

/// `TOPSTORE-BOTTOMSTORE`, which with the board must make the game's total;
/// returned indexed by absolute side (bottom first).
fn parse_stores<G: Game>(f: &str, board_total: u32) -> Result<[u16; 2], NotationError> {
    let (a, b) = f.split_once('-').ok_or_else(|| {
        err(
            "stores",
            format!("expected `TOPSTORE-BOTTOMSTORE`, found {}", show(f)),
        )
    })?;
    let parse = |x: &str| {
        x.parse::<u16>()
            .ok()
            .filter(|&v| v as u32 <= G::TOTAL)
            .ok_or_else(|| {
                err(
                    "stores",
                    format!("expected two seed counts `TOP-BOTTOM`, found {}", show(f)),
                )
            })
    };
    let (t, b) = (parse(a)?, parse(b)?);
    let total = board_total + t as u32 + b as u32;
    if total != G::TOTAL {
        return Err(err(
            "stores",
            format!(
                "board ({board_total}) plus stores ({t}+{b}) make {total} seeds, expected {}",
                G::TOTAL
            ),
        ));
    }
    Ok([b, t])
}

fn parse_phase<G: Game>(phase: &str, side: u8) -> Result<u16, NotationError> {
    if phase == "main" {
        return Ok(0);
    }
    let list = phase.strip_prefix("opening:").ok_or_else(|| {
        err(
            "phase",
            format!(
                "expected `main` or `opening:` plus played pits, found {}",
                show(phase)
            ),
        )
    })?;
    let mut played_abs = 0u16;
    if !list.is_empty() {
        for p in list.split(',') {
            let a = G::parse_pit(p.trim()).ok_or_else(|| {
                err(
                    "phase",
                    format!(
                        "expected a pit number 0..9 in the opening list, found {}",
                        show(p)
                    ),
                )
            })?;
            if played_abs & (1 << a) != 0 {
                return Err(err(
                    "phase",
                    format!("pit {a} is listed twice in the opening list"),
                ));
            }
            played_abs |= 1 << a;
        }
    }
    let count = |s: u8| {
        (0..G::HALF)
            .filter(|&i| played_abs & (1 << ((G::row_start(s) + i) % G::PITS)) != 0)
            .count()
    };
    let (mine, theirs) = (count(side), count(side ^ 1));
    if mine + theirs == G::PITS {
        return Err(err(
            "phase",
            "all ten pits have been played, so the opening is over: write `main`",
        ));
    }
    if !(mine == theirs || mine + 1 == theirs) {
        return Err(err(
            "phase",
            format!(
                "the opening list gives player {} {} played pits and player {} {}; with player {} to move \
                 the mover must have played as many pits as the opponent, or one fewer",
                G::side_name(side),
                mine,
                G::side_name(side ^ 1),
                theirs,
                G::side_name(side)
            ),
        ));
    }
    let start = G::row_start(side);
    let mut rel = 0u16;
    for i in 0..G::PITS {
        if played_abs & (1 << ((start + i) % G::PITS)) != 0 {
            rel |= 1 << i;
        }
    }
    Ok(OPENING_ACTIVE | rel)
}

/// Formats a position (with stores) in the notation of game `G`.
pub fn format_state<G: Game>(st: &State) -> String {
    let abs = G::to_absolute(&st.pos);
    let row = |side: u8| {
        let s = G::row_start(side);
        (0..G::HALF)
            .map(|i| abs[s + i].to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = format!(
        "{}/{} {} {}-{}",
        row(1),
        row(0),
        G::side_name(st.pos.side),
        st.stores[1],
        st.stores[0]
    );
    if G::HAS_OPENING {
        out.push(' ');
        out.push_str(&format_phase::<G>(&st.pos));
    }
    out
}

/// Formats the phase field of an Adji-Boto position.
pub fn format_phase<G: Game>(pos: &Position) -> String {
    if !pos.in_opening() {
        return "main".to_string();
    }
    let mut abs: Vec<usize> = (0..G::PITS)
        .filter(|&i| pos.opening & (1 << i) != 0)
        .map(|i| G::abs_pit(pos, i))
        .collect();
    abs.sort_unstable();
    format!(
        "opening:{}",
        abs.iter()
            .map(|&a| G::pit_name(a))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// Formats a board-only key (board and mover, no stores) used by table queries.
pub fn format_board<G: Game>(pos: &Position) -> String {
    let full = format_state::<G>(&State {
        pos: *pos,
        stores: [0, 0],
    });
    let mut f: Vec<&str> = full.split(' ').collect();
    f.remove(2);
    f.join(" ")
}

/// Parses a move name for the mover of `pos` (`1A`…`6B`, or `0`…`9`/`pass`).
///
/// # Errors
/// A [`NotationError`] when the text names no pit, or a pit of the other player.
pub fn parse_move<G: Game>(pos: &Position, s: &str) -> Result<Move, NotationError> {
    let t = s.trim();
    if G::HAS_PASS && t.eq_ignore_ascii_case("pass") {
        return Ok(Move::PASS);
    }
    let abs = G::parse_pit(t).ok_or_else(|| {
        let expected = if G::HAS_PASS {
            "a pit 0..9 or `pass`"
        } else {
            "a pit 1A..6A or 1B..6B"
        };
        err("move", format!("expected {expected}, found {}", show(t)))
    })?;
    let rel = (abs + G::PITS - G::row_start(pos.side)) % G::PITS;
    if rel >= G::HALF {
        return Err(err(
            "move",
            format!(
                "pit {} belongs to player {}, but player {} is to move",
                G::pit_name(abs),
                G::side_name(pos.side ^ 1),
                G::side_name(pos.side)
            ),
        ));
    }
    Ok(Move(rel as u8))
}

/// Names a move of the mover of `pos`.
pub fn format_move<G: Game>(pos: &Position, mv: Move) -> String {
    if mv.is_pass() {
        "pass".to_string()
    } else {
        G::pit_name(G::abs_pit(pos, mv.pit()))
    }
}

/// Names the moves of `line` played from `pos`, each for the mover of the
/// position it is played in (a principal variation, an engine line).
pub fn format_line<G: Game>(pos: &Position, line: &[Move]) -> Vec<String> {
    let mut cur = *pos;
    line.iter()
        .map(|&mv| {
            let name = format_move::<G>(&cur, mv);
            cur = G::play_unchecked(&cur, mv).pos;
            name
        })
        .collect()
}
