//! `show`, `moves`, `perft`, `replay`.

use adji::driver::{replay, GameResult, ReplayError};
use adji::game::{Game, State};
use adji::notation::{format_move, format_state, parse_move, parse_state, Stores};
use serde_json::json;

use crate::{CmdResult, PosArgs};

/// Parses `--position` for game `G`.
pub fn parse_pos<G: Game>(a: &PosArgs) -> Result<State, String> {
    parse_state::<G>(&a.position, Stores::Required).map_err(|e| format!("--position: {e}"))
}

/// A game result as JSON.
pub fn result_json<G: Game>(r: &GameResult) -> serde_json::Value {
    json!({
        "reason": r.reason,
        "description": r.reason.describe(),
        "score": { G::side_name(0).to_string(): r.score[0], G::side_name(1).to_string(): r.score[1] },
        "winner": r.winner.map(|s| G::side_name(s).to_string()),
    })
}

/// A one-line description of a result.
pub fn result_text<G: Game>(r: &GameResult) -> String {
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

pub fn cmd_show<G: Game>(a: &PosArgs) -> CmdResult {
    let st = parse_pos::<G>(a)?;
    print!("{}", adji::display::diagram::<G>(&st));
    println!("  {}", format_state::<G>(&st));
    Ok(())
}

pub fn cmd_moves<G: Game>(a: &PosArgs, json_out: bool) -> CmdResult {
    let st = parse_pos::<G>(a)?;
    let moves = G::legal_moves(&st.pos);
    let mut list = Vec::new();
    for mv in moves.iter() {
        let (after, captured) = st.play::<G>(mv);
        list.push((
            format_move::<G>(&st.pos, mv),
            format_state::<G>(&after),
            captured,
        ));
    }
    let end = if moves.is_empty() {
        let reason = G::end_reason(&st.pos).expect("no moves means the game is over");
        let score = adji::driver::final_score::<G>(&st);
        Some((reason, score))
    } else {
        None
    };
    if json_out {
        let v = json!({
            "position": format_state::<G>(&st),
            "moves": list.iter().map(|(m, p, c)| json!({"move": m, "position": p, "captured": c})).collect::<Vec<_>>(),
            "game_over": end.map(|(r, s)| json!({"reason": r, "description": r.describe(),
                "split": { G::side_name(0).to_string(): s[0], G::side_name(1).to_string(): s[1] }})),
        });
        println!("{v}");
    } else if let Some((r, s)) = end {
        println!(
            "game over: {}; split {}: {} {}: {}",
            r.describe(),
            G::side_name(0),
            s[0],
            G::side_name(1),
            s[1]
        );
    } else {
        for (m, p, c) in &list {
            println!("{m:>5}  {p}  captures {c}");
        }
    }
    Ok(())
}

pub fn cmd_perft<G: Game>(a: &PosArgs, depth: u32, divide: bool, json_out: bool) -> CmdResult {
    let st = parse_pos::<G>(a)?;
    let t = std::time::Instant::now();
    let d = adji::perft::divide::<G>(&st.pos, depth);
    let nodes: u64 = if depth == 0 {
        1
    } else {
        d.iter().map(|x| x.1).sum()
    };
    let secs = t.elapsed().as_secs_f64();
    if json_out {
        let mut v = json!({ "nodes": nodes });
        if divide {
            let m: serde_json::Map<String, serde_json::Value> = d
                .iter()
                .map(|(mv, n)| (format_move::<G>(&st.pos, *mv), json!(n)))
                .collect();
            v["divide"] = serde_json::Value::Object(m);
        }
        println!("{v}");
    } else {
        if divide {
            for (mv, n) in &d {
                println!("{}: {n}", format_move::<G>(&st.pos, *mv));
            }
        }
        println!("nodes {nodes}");
        eprintln!(
            "time {:.3}s, {:.0} nodes/s",
            secs,
            nodes as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

pub fn cmd_replay<G: Game>(a: &PosArgs, moves: &str, json_out: bool) -> CmdResult {
    let st = parse_pos::<G>(a)?;
    // Parse move by move: each name is read for the mover of its position.
    let mut parsed = Vec::new();
    let mut cur = st.pos;
    for (i, name) in moves.split_whitespace().enumerate() {
        let mv =
            parse_move::<G>(&cur, name).map_err(|e| format!("move {} ({name}): {e}", i + 1))?;
        match G::try_play(&cur, mv) {
            Ok(p) => cur = p.pos,
            Err(_) => {
                parsed.push(mv);
                break; // reported with the legal moves by `replay` below
            }
        }
        parsed.push(mv);
    }
    let rep = replay::<G>(st, &parsed).map_err(|e| match e {
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
        ReplayError::GameOver { index, result } => {
            format!(
                "move {} comes after the end of the game ({})",
                index + 1,
                result_text::<G>(&result)
            )
        }
    })?;
    if json_out {
        let v = json!({
            "start": format_state::<G>(&rep.start),
            "steps": rep.steps.iter().map(|s| json!({"move": s.name, "captured": s.captured,
                "position": format_state::<G>(&s.after)})).collect::<Vec<_>>(),
            "result": rep.result.as_ref().map(result_json::<G>),
        });
        println!("{v}");
    } else {
        println!("      {}", format_state::<G>(&rep.start));
        for (i, s) in rep.steps.iter().enumerate() {
            let cap = if s.captured > 0 {
                format!("  (captures {})", s.captured)
            } else {
                String::new()
            };
            println!(
                "{:>3}. {:>4}  {}{}",
                i + 1,
                s.name,
                format_state::<G>(&s.after),
                cap
            );
        }
        match &rep.result {
            Some(r) => println!("{}", result_text::<G>(r)),
            None => println!("game continues"),
        }
    }
    Ok(())
}
