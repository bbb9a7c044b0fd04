//! `solve` and `bench`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use adji::game::{Game, State};
use adji::notation::{format_move, format_state, parse_state, Stores};
use adji::search::{Analysis, Limits, Options, Searcher};
use adji::tables::TableSet;
use adji::tt::{AtomicTable, TransTable};
use adji::value::LoopRule;
use adji::value::Range;
use serde_json::json;

use crate::util::fmt_bytes;
use crate::CmdResult;

/// Options of `solve`.
pub struct SolveArgs {
    pub position: Option<String>,
    pub positions_file: Option<PathBuf>,
    pub tables: Option<PathBuf>,
    pub rule: LoopRule,
    pub hash_mib: usize,
    pub limits: Limits,
    pub json: bool,
    pub threads: usize,
}

/// Opens the tables for a search: `None` when no directory or no files.
pub fn open_tables<G: Game>(
    dir: Option<&Path>,
    rule: LoopRule,
) -> Result<Option<TableSet>, String> {
    let Some(dir) = dir else { return Ok(None) };
    if !dir.is_dir() {
        return Ok(None);
    }
    let set = TableSet::open_available::<G>(dir, rule).map_err(|e| e.to_string())?;
    Ok(if set.covered() == 0 { None } else { Some(set) })
}

fn wdl(lower: i32, upper: i32, mover: u32, opp: u32, n: u32) -> &'static str {
    // Final scores: mover gets (n + v) / 2 of the board.
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

fn report_json<G: Game>(st: &State, a: &Analysis) -> serde_json::Value {
    let pos = &st.pos;
    let n = pos.level();
    let (ms, os) = (
        st.stores[pos.side as usize] as u32,
        st.stores[(pos.side ^ 1) as usize] as u32,
    );
    let final_of = |v: i32| {
        let m = ms as i32 + (n as i32 + v) / 2;
        let o = os as i32 + (n as i32 - v) / 2;
        json!({ G::side_name(pos.side).to_string(): m, G::side_name(pos.side ^ 1).to_string(): o })
    };
    let exact = a.value.exact();
    let best: Vec<String> = if exact {
        a.moves
            .iter()
            .filter(|m| m.value.exact() && m.value.lower == a.value.lower)
            .map(|m| format_move::<G>(pos, m.mv))
            .collect()
    } else {
        Vec::new()
    };
    let mut pv = Vec::new();
    let mut cur = *pos;
    for mv in &a.pv {
        pv.push(format_move::<G>(&cur, *mv));
        cur = G::play_unchecked(&cur, *mv).pos;
    }
    let nps = a.stats.nodes as f64 / (a.stats.time_ms.max(1) as f64 / 1000.0);
    json!({
        "position": format_state::<G>(st),
        "value": if exact { json!(a.value.lower) } else { serde_json::Value::Null },
        "exact": exact,
        "lower": a.value.lower,
        "upper": a.value.upper,
        "wdl": wdl(a.value.lower, a.value.upper, ms, os, n),
        "final_score": if exact { final_of(a.value.lower) } else { json!({"lower": final_of(a.value.lower), "upper": final_of(a.value.upper)}) },
        "loop_sensitive": a.loop_sensitive(),
        "moves": a.moves.iter().map(|m| json!({
            "move": format_move::<G>(pos, m.mv),
            "value": if m.value.exact() { json!(m.value.lower) } else { serde_json::Value::Null },
            "exact": m.value.exact(), "lower": m.value.lower, "upper": m.value.upper, "captured": m.captured,
        })).collect::<Vec<_>>(),
        "best_moves": best,
        "pv": pv,
        "pv_end": a.pv_end,
        "game_over": G::end_reason(pos).map(|r| r.describe()),
        "from_tables": a.from_tables,
        "nodes": a.stats.nodes,
        "time_ms": a.stats.time_ms,
        "nps": nps.round() as u64,
        "tt_hit_rate": if a.stats.tt_probes > 0 { a.stats.tt_hits as f64 / a.stats.tt_probes as f64 } else { 0.0 },
        "table_hits": a.stats.table_hits,
    })
}

fn print_report<G: Game>(st: &State, v: &serde_json::Value) {
    print!("{}", adji::display::diagram::<G>(st));
    println!("  {}", v["position"].as_str().unwrap_or(""));
    if let Some(r) = v["game_over"].as_str() {
        println!("game over: {r}");
    }
    let (lo, hi) = (
        v["lower"].as_i64().unwrap_or(0),
        v["upper"].as_i64().unwrap_or(0),
    );
    if v["exact"].as_bool() == Some(true) {
        println!("value: {lo:+} (seeds on the board, mover minus opponent)");
        println!("projected final score: {}", v["final_score"]);
    } else {
        println!("value: unresolved; lower bound {lo:+}, upper bound {hi:+} (a limit stopped the search)");
        println!(
            "projected final score between {} and {}",
            v["final_score"]["lower"], v["final_score"]["upper"]
        );
    }
    println!("result for the mover: {}", v["wdl"].as_str().unwrap_or(""));
    match v["loop_sensitive"].as_bool() {
        Some(true) => {
            println!("loop-sensitive: yes (the value depends on how endless play is scored)")
        }
        Some(false) => println!("loop-sensitive: no"),
        None => println!("loop-sensitive: unresolved"),
    }
    let moves = v["moves"].as_array().cloned().unwrap_or_default();
    if !moves.is_empty() {
        println!("moves (best first):");
        for m in &moves {
            let r = Range {
                lower: m["lower"].as_i64().unwrap_or(0) as i32,
                upper: m["upper"].as_i64().unwrap_or(0) as i32,
            };
            let text = if r.exact() {
                format!("{:+}", r.lower)
            } else if r.lower > -1000 && r.upper < 1000 {
                format!(
                    "between {:+} and {:+} (lower bound {:+}, upper bound {:+})",
                    r.lower, r.upper, r.lower, r.upper
                )
            } else {
                "unresolved".into()
            };
            let cap = m["captured"].as_u64().unwrap_or(0);
            let cap = if cap > 0 {
                format!("  (captures {cap})")
            } else {
                String::new()
            };
            println!("  {:>5} {}{}", m["move"].as_str().unwrap_or(""), text, cap);
        }
    }
    let pv: Vec<&str> = v["pv"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str())
        .collect();
    if !pv.is_empty() {
        let end = match serde_json::from_value::<String>(v["pv_end"].clone())
            .unwrap_or_default()
            .as_str()
        {
            "GameOver" => "game over",
            "TableHit" => "endgame-table hit",
            "Loop" => "repetition",
            "Length" => "length cap",
            _ => "unresolved",
        };
        println!("principal variation: {} ({end})", pv.join(" "));
    }
    println!(
        "nodes {}, time {} ms, {} nodes/s, TT hit rate {:.1}%, table hits {}",
        v["nodes"],
        v["time_ms"],
        v["nps"],
        v["tt_hit_rate"].as_f64().unwrap_or(0.0) * 100.0,
        v["table_hits"]
    );
}

fn analyse_one<G: Game>(
    st: &State,
    tables: Option<&TableSet>,
    tt: &AtomicTable,
    a: &SolveArgs,
) -> Result<serde_json::Value, String> {
    tt.new_generation();
    let opts = Options {
        rule: a.rule,
        limits: a.limits,
        parallel: a.threads > 1,
        ..Options::default()
    };
    let s = Searcher::<G, _>::new(tables, tt, opts).map_err(|e| e.to_string())?;
    let an = s.analyse(&st.pos);
    Ok(report_json::<G>(st, &an))
}

pub fn cmd_solve<G: Game>(a: &SolveArgs) -> CmdResult {
    let tables = open_tables::<G>(a.tables.as_deref(), a.rule)?;
    let tt = AtomicTable::new(a.hash_mib);
    eprintln!(
        "{}: hash {} ({} entries), threads {}, tables {}",
        G::ID,
        fmt_bytes(tt.bytes() as u64),
        tt.capacity(),
        a.threads,
        match &tables {
            Some(t) => format!(
                "levels 0..={} ({} mapped)",
                t.covered() - 1,
                fmt_bytes(t.mapped_bytes())
            ),
            None => "none".into(),
        }
    );
    match (&a.position, &a.positions_file) {
        (Some(p), None) => {
            let st =
                parse_state::<G>(p, Stores::Required).map_err(|e| format!("--position: {e}"))?;
            let v = analyse_one::<G>(&st, tables.as_ref(), &tt, a)?;
            if a.json {
                println!("{v}");
            } else {
                print_report::<G>(&st, &v);
            }
            Ok(())
        }
        (None, Some(f)) => {
            let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let lines: Vec<(usize, String)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .map(|(i, l)| (i + 1, l.to_string()))
                .collect();
            let pb = crate::util::bar(lines.len() as u64, "positions");
            let mut bad = 0;
            for (ln, line) in &lines {
                let v = parse_state::<G>(line, Stores::Required)
                    .map_err(|e| e.to_string())
                    .and_then(|st| analyse_one::<G>(&st, tables.as_ref(), &tt, a).map(|v| (st, v)));
                pb.inc(1);
                pb.suspend(|| match v {
                    Ok((st, v)) => {
                        if a.json {
                            println!("{v}");
                        } else {
                            print_report::<G>(&st, &v);
                            println!();
                        }
                    }
                    Err(e) => {
                        bad += 1;
                        if a.json {
                            println!("{}", json!({"line": ln, "input": line, "error": e}));
                        } else {
                            println!("line {ln}: error: {e}\n");
                        }
                    }
                });
            }
            pb.finish_and_clear();
            if bad > 0 {
                return Err(format!(
                    "{bad} line(s) of {} could not be solved",
                    f.display()
                ));
            }
            Ok(())
        }
        _ => Err("give exactly one of --position and --positions-file".into()),
    }
}

/// Parses `--time` seconds.
pub fn parse_time(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("--time: expected seconds, found '{s}'"))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(format!(
            "--time: expected a positive number of seconds, found '{s}'"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

pub fn cmd_bench(hash_mib: usize, json_out: bool) -> CmdResult {
    let r = adji::bench::run(hash_mib);
    if json_out {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
    } else {
        for p in &r.positions {
            println!(
                "{:<9} {:<48} value {:+4}  nodes {:>10}  {:>6} ms",
                p.game, p.position, p.value, p.nodes, p.time_ms
            );
        }
        println!("===========================");
        println!("total time (ms) : {}", r.time_ms);
        println!("nodes searched  : {}", r.nodes);
        println!("nodes/second    : {}", r.nps);
    }
    Ok(())
}
