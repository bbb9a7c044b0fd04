//! The reports the API serves, built from library results with the command
//! line's field names and error texts (`moves --json`, `replay --json`,
//! `tables probe --json`, `solve --json`).
//!
//! A thin adapter: the command line's report types are moving into the
//! library, and these functions then become calls to them.

use serde_json::{json, Value};

use crate::driver::{final_score, replay as drive, GameResult, ReplayError};
use crate::game::{Game, Position, State};
use crate::notation::{format_board, format_move, format_state, parse_move};
use crate::search::Analysis;
use crate::tables::{move_values, TableSet};

/// Both players' numbers, keyed by their names.
fn sides<G: Game, T: serde::Serialize>(v: [T; 2]) -> Value {
    let [a, b] = v;
    json!({ G::side_name(0).to_string(): a, G::side_name(1).to_string(): b })
}

/// `moves --json`: each legal move with the position after it, or how the game ended.
pub fn moves<G: Game>(st: &State) -> Value {
    let legal = G::legal_moves(&st.pos);
    let list: Vec<Value> = legal
        .iter()
        .map(|mv| {
            let (after, captured) = st.play::<G>(mv);
            json!({"move": format_move::<G>(&st.pos, mv), "position": format_state::<G>(&after), "captured": captured})
        })
        .collect();
    let end = G::end_reason(&st.pos).filter(|_| legal.is_empty());
    json!({
        "position": format_state::<G>(st),
        "moves": list,
        "game_over": end.map(|r| json!({"reason": r, "description": r.describe(),
            "split": sides::<G, _>(final_score::<G>(st))})),
    })
}

fn result_json<G: Game>(r: &GameResult) -> Value {
    json!({
        "reason": r.reason,
        "description": r.reason.describe(),
        "score": sides::<G, _>(r.score),
        "winner": r.winner.map(|s| G::side_name(s).to_string()),
    })
}

fn result_text<G: Game>(r: &GameResult) -> String {
    let w = match r.winner {
        Some(s) => format!("player {} wins", G::side_name(s)),
        None => "draw".to_string(),
    };
    format!(
        "game over: {}; final {}: {} {}: {}; {}",
        r.reason.describe(),
        G::side_name(0),
        r.score[0],
        G::side_name(1),
        r.score[1],
        w
    )
}

/// `replay --json`: plays `names` from `st` with every end rule applied.
///
/// # Errors
/// The command line's message for a bad or illegal move, or a move after the end.
pub fn replay<G: Game>(st: State, names: &str) -> Result<Value, String> {
    let mut parsed = Vec::new();
    let mut cur = st.pos;
    for (i, name) in names.split_whitespace().enumerate() {
        let mv =
            parse_move::<G>(&cur, name).map_err(|e| format!("move {} ({name}): {e}", i + 1))?;
        parsed.push(mv);
        match G::try_play(&cur, mv) {
            Ok(p) => cur = p.pos,
            Err(_) => break,
        }
    }
    let rep = drive::<G>(st, &parsed).map_err(|e| match e {
        ReplayError::Illegal { index, err, state } => {
            let legal: Vec<String> = err
                .legal
                .iter()
                .map(|m| format_move::<G>(&state.pos, m))
                .collect();
            format!(
                "move {} ({}) is illegal in {}; legal moves: {}",
                index + 1,
                format_move::<G>(&state.pos, err.mv),
                format_state::<G>(&state),
                if legal.is_empty() {
                    "none (the game is over)".to_string()
                } else {
                    legal.join(" ")
                }
            )
        }
        ReplayError::GameOver { index, result } => format!(
            "move {} comes after the end of the game ({})",
            index + 1,
            result_text::<G>(&result)
        ),
    })?;
    Ok(json!({
        "start": format_state::<G>(&rep.start),
        "steps": rep.steps.iter().map(|s| json!({"move": s.name, "captured": s.captured,
            "position": format_state::<G>(&s.after)})).collect::<Vec<_>>(),
        "result": rep.result.as_ref().map(result_json::<G>),
    }))
}

/// `tables probe --json` of a main-phase position.
///
/// # Errors
/// The command line's message when the tables do not cover `pos`.
pub fn probe<G: Game>(set: &TableSet, pos: &Position) -> Result<Value, String> {
    if pos.in_opening() {
        return Err("tables cover positions after the opening only (phase `main`)".into());
    }
    let n = pos.level();
    let not_covered = || {
        format!(
            "level {n} ({n} seeds on the board) is not built; tables cover levels 0..={}",
            set.covered() as i64 - 1
        )
    };
    let b = set.bounds::<G>(pos).ok_or_else(not_covered)?;
    let moves = move_values::<G>(set, pos).ok_or_else(not_covered)?;
    let best = moves.iter().map(|m| m.value).max();
    Ok(json!({
        "position": format_board::<G>(pos),
        "value": b.value(set.rule.w::<G>(pos)),
        "loop_sensitive": b.loop_sensitive(),
        "lo": b.lo, "hi": b.hi,
        "moves": moves.iter().map(|m| json!({"move": format_move::<G>(pos, m.mv), "value": m.value})).collect::<Vec<_>>(),
        "best_moves": moves.iter().filter(|m| Some(m.value) == best).map(|m| format_move::<G>(pos, m.mv)).collect::<Vec<_>>(),
        "game_over": G::end_reason(pos).map(|r| r.describe()),
    }))
}

fn wdl(lower: i32, upper: i32, mover: u32, opp: u32, n: u32) -> &'static str {
    let fin = |v: i32| (mover as i32 * 2 + n as i32 + v) - (opp as i32 * 2 + n as i32 - v);
    match (fin(lower).signum(), fin(upper).signum()) {
        (1, _) => "win",
        (_, -1) => "loss",
        (0, 0) => "draw",
        (0, _) => "draw or win",
        (_, 0) => "loss or draw",
        _ => "unresolved",
    }
}

/// `solve --json`: the analysis `a` of `st`.
pub fn solve<G: Game>(st: &State, a: &Analysis) -> Value {
    let pos = &st.pos;
    let n = pos.level();
    let side = pos.side as usize;
    let (ms, os) = (st.stores[side] as u32, st.stores[side ^ 1] as u32);
    let final_of = |v: i32| {
        let mut s = [0i32; 2];
        s[side] = ms as i32 + (n as i32 + v) / 2;
        s[side ^ 1] = os as i32 + (n as i32 - v) / 2;
        sides::<G, _>(s)
    };
    let exact = a.value.exact();
    let best: Vec<String> = a
        .moves
        .iter()
        .filter(|m| exact && m.value.exact() && m.value.lower == a.value.lower)
        .map(|m| format_move::<G>(pos, m.mv))
        .collect();
    let mut cur = *pos;
    let pv: Vec<String> =
        a.pv.iter()
            .map(|&mv| {
                let name = format_move::<G>(&cur, mv);
                cur = G::play_unchecked(&cur, mv).pos;
                name
            })
            .collect();
    let s = &a.stats;
    let nps = s.nodes as f64 / (s.time_ms.max(1) as f64 / 1000.0);
    json!({
        "position": format_state::<G>(st),
        "value": exact.then_some(a.value.lower),
        "exact": exact,
        "lower": a.value.lower,
        "upper": a.value.upper,
        "wdl": wdl(a.value.lower, a.value.upper, ms, os, n),
        "final_score": if exact { final_of(a.value.lower) } else { json!({"lower": final_of(a.value.lower), "upper": final_of(a.value.upper)}) },
        "loop_sensitive": a.loop_sensitive(),
        "moves": a.moves.iter().map(|m| json!({
            "move": format_move::<G>(pos, m.mv),
            "value": m.value.exact().then_some(m.value.lower),
            "exact": m.value.exact(), "lower": m.value.lower, "upper": m.value.upper, "captured": m.captured,
        })).collect::<Vec<_>>(),
        "best_moves": best,
        "pv": pv,
        "pv_end": a.pv_end,
        "game_over": G::end_reason(pos).map(|r| r.describe()),
        "from_tables": a.from_tables,
        "nodes": s.nodes,
        "time_ms": s.time_ms,
        "nps": nps.round() as u64,
        "tt_hit_rate": if s.tt_probes > 0 { s.tt_hits as f64 / s.tt_probes as f64 } else { 0.0 },
        "table_hits": s.table_hits,
    })
}
