//! `tables build | probe | verify | stats`.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

use adji::game::{Game, GameId};
use adji::notation::{format_board, format_move, parse_state, Stores};
use adji::tables::build::{build_tables_within, floor_pass, plan, plan_peak, project};
use adji::tables::stats::{level_stats, markdown};
use adji::tables::verify::{verify_level, verify_sample};
use adji::tables::{level_path, move_values, Table, TableSet};
use adji::value::LoopRule;
use serde_json::json;

use crate::util::{bar, fmt_bytes, peak_rss, Bar};
use crate::CmdResult;

/// Options of `tables build`.
pub struct BuildArgs {
    pub dir: PathBuf,
    pub max: u32,
    pub rule: LoopRule,
    pub memory: u64,
    pub compare_floor: bool,
}

pub fn cmd_build<G: Game>(a: &BuildArgs) -> CmdResult {
    let max_level = if G::ID == GameId::Adjito {
        G::TOTAL
    } else {
        60
    };
    if a.max > max_level {
        return Err(format!(
            "--max-seeds {} is above the largest level this tool builds ({max_level})",
            a.max
        ));
    }
    let mut p = plan::<G>(a.max).map_err(|e| e.to_string())?;
    let per = project::<G>(&mut p);
    println!(
        "Plan: {} tables, levels 0..={}, loop rule `{}`, in {}",
        G::ID,
        a.max,
        a.rule.name(),
        a.dir.display()
    );
    println!(
        "| level | positions | file | working memory | lower levels mapped | peak | projected |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for l in &p {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.1} s |",
            l.level,
            l.positions,
            fmt_bytes(l.file_bytes),
            fmt_bytes(l.work_bytes),
            fmt_bytes(l.lower_bytes),
            fmt_bytes(l.peak_bytes),
            l.projected_secs.unwrap_or(0.0)
        );
    }
    let disk: u64 = p.iter().map(|l| l.file_bytes).sum();
    let projected: f64 = p.iter().filter_map(|l| l.projected_secs).sum();
    println!(
        "Disk: {}. Peak memory: {} (cells and frontiers of the level being built, plus the lower levels mapped). \
         Projected time if nothing is kept: {:.0} s (an estimate: the floor measured now, {:.1} ns/position, \
         times the build/floor ratio {}).",
        fmt_bytes(disk),
        fmt_bytes(plan_peak(&p)),
        projected,
        per * 1e9,
        adji::tables::build::BUILD_PER_FLOOR
    );
    if plan_peak(&p) > a.memory {
        return Err(format!(
            "the build needs up to {} of memory but --memory allows {}; lower --max-seeds or raise --memory",
            fmt_bytes(plan_peak(&p)),
            fmt_bytes(a.memory)
        ));
    }
    println!();
    println!("| level | positions | status | forward s | acyclic s (settled) | sweep s | total s | floor s | build/floor | max frontier | peak RSS |");
    println!("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let pb = Bar(bar(0, "positions"));
    let t0 = Instant::now();
    let res = build_tables_within::<G>(&a.dir, a.rule, a.max, a.memory, &pb, |ev| {
        let n = ev.level;
        match &ev.report {
            None => pb.0.suspend(|| {
                println!(
                    "| {n} | {} | kept (verified) | | | | | | | | |",
                    p[n as usize].positions
                )
            }),
            Some(r) => {
                let (floor, ratio) = if a.compare_floor {
                    let t = Instant::now();
                    std::hint::black_box(floor_pass::<G>(n));
                    let f = t.elapsed().as_secs_f64();
                    (
                        format!("{f:.3}"),
                        format!("{:.2}", r.total_secs / f.max(1e-9)),
                    )
                } else {
                    (String::new(), String::new())
                };
                pb.0.suspend(|| println!(
                    "| {n} | {} | built | {:.3} | {:.3} ({:.0}%) | {:.3} | {:.3} | {floor} | {ratio} | {} | {} |",
                    r.positions,
                    r.forward_secs,
                    r.kahn_secs,
                    100.0 * r.kahn_settled as f64 / r.positions.max(1) as f64,
                    r.sweep_secs,
                    r.total_secs,
                    fmt_bytes(8 * r.max_frontier),
                    fmt_bytes(peak_rss())
                ));
            }
        }
    });
    pb.0.finish_and_clear();
    res.map_err(|e| e.to_string())?;
    println!("\nDone in {:.1}s.", t0.elapsed().as_secs_f64());
    Ok(())
}

fn open_for_probe<G: Game>(dir: &Path, rule: LoopRule) -> Result<TableSet, String> {
    let set = TableSet::open_available::<G>(dir, rule).map_err(|e| e.to_string())?;
    if set.covered() == 0 {
        let other: Vec<&str> = TableSet::rules_present(dir, G::ID)
            .into_iter()
            .filter(|&r| r != rule)
            .map(|r| r.name())
            .collect();
        let hint = if other.is_empty() {
            format!(
                "build them with `adji tables build --game {} --max-seeds N --dir {}`",
                G::ID,
                dir.display()
            )
        } else {
            format!("tables for --loop {} are there", other.join(", "))
        };
        return Err(format!(
            "no {} tables for --loop {} in {}; {hint}",
            G::ID,
            rule.name(),
            dir.display()
        ));
    }
    Ok(set)
}

fn probe_one<G: Game>(set: &TableSet, line: &str) -> Result<serde_json::Value, String> {
    let st = parse_state::<G>(line, Stores::Optional).map_err(|e| e.to_string())?;
    let pos = st.pos;
    if pos.in_opening() {
        return Err("tables cover positions after the opening only (phase `main`)".into());
    }
    let n = pos.level();
    if !set.covers(n) {
        return Err(format!(
            "level {n} ({n} seeds on the board) is not built; tables cover levels 0..={}",
            set.covered() as i64 - 1
        ));
    }
    let b = set.bounds::<G>(&pos).expect("covered");
    let value = b.value(set.rule.w::<G>(&pos));
    let moves = move_values::<G>(set, &pos).expect("children are at or below a covered level");
    let best = moves.iter().map(|m| m.value).max();
    Ok(json!({
        "position": format_board::<G>(&pos),
        "value": value,
        "loop_sensitive": b.loop_sensitive(),
        "lo": b.lo, "hi": b.hi,
        "moves": moves.iter().map(|m| json!({"move": format_move::<G>(&pos, m.mv), "value": m.value})).collect::<Vec<_>>(),
        "best_moves": moves.iter().filter(|m| Some(m.value) == best).map(|m| format_move::<G>(&pos, m.mv)).collect::<Vec<_>>(),
        "game_over": G::end_reason(&pos).map(|r| r.describe()),
    }))
}

fn print_probe(v: &serde_json::Value) {
    let wdl = |x: i64| match x.cmp(&0) {
        std::cmp::Ordering::Greater => "win",
        std::cmp::Ordering::Equal => "draw",
        std::cmp::Ordering::Less => "loss",
    };
    let value = v["value"].as_i64().unwrap_or(0);
    println!("position {}", v["position"].as_str().unwrap_or(""));
    println!(
        "value {value:+} ({} for the mover), loop-sensitive: {}",
        wdl(value),
        v["loop_sensitive"]
    );
    if let Some(r) = v["game_over"].as_str() {
        println!("game over: {r}");
    }
    for m in v["moves"].as_array().into_iter().flatten() {
        println!(
            "  {:>5} {:+}",
            m["move"].as_str().unwrap_or(""),
            m["value"].as_i64().unwrap_or(0)
        );
    }
    let best: Vec<&str> = v["best_moves"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str())
        .collect();
    if !best.is_empty() {
        println!("best: {}", best.join(" "));
    }
}

pub fn cmd_probe<G: Game>(
    dir: &Path,
    rule: LoopRule,
    position: Option<&str>,
    file: Option<&Path>,
    json_out: bool,
) -> CmdResult {
    let set = open_for_probe::<G>(dir, rule)?;
    match (position, file) {
        (Some(p), None) => {
            let v = probe_one::<G>(&set, p).map_err(|e| format!("--position: {e}"))?;
            if json_out {
                println!("{v}");
            } else {
                print_probe(&v);
            }
            Ok(())
        }
        (None, Some(f)) => {
            let fh = std::fs::File::open(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let mut bad = 0;
            for (i, line) in std::io::BufReader::new(fh).lines().enumerate() {
                let line = line.map_err(|e| format!("{}: line {}: {e}", f.display(), i + 1))?;
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                let v = probe_one::<G>(&set, &line).unwrap_or_else(|e| {
                    bad += 1;
                    json!({"line": i + 1, "input": line, "error": e})
                });
                if json_out {
                    println!("{v}");
                } else if let Some(e) = v.get("error") {
                    println!("line {}: error: {}", i + 1, e.as_str().unwrap_or(""));
                } else {
                    print_probe(&v);
                    println!();
                }
            }
            if bad > 0 {
                return Err(format!(
                    "{bad} line(s) of {} could not be probed",
                    f.display()
                ));
            }
            Ok(())
        }
        _ => Err("give exactly one of --position and --positions-file".into()),
    }
}

/// Levels present in `dir` for a game and rule, by file name.
fn levels_in_dir(dir: &Path, game: GameId, rule: LoopRule) -> Vec<u32> {
    let prefix = format!("{}-{}-", game.name(), rule.name());
    let mut v: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.strip_prefix(&prefix)?
                .strip_suffix(".adjt")?
                .parse()
                .ok()
        })
        .collect();
    v.sort_unstable();
    v
}

/// Verifies every table file of game `G` in `dir`. Returns the number of
/// problems, the first one's message, and how many files were looked at.
pub fn cmd_verify<G: Game>(
    dir: &Path,
    sample: Option<u64>,
) -> Result<(u64, Option<String>, usize), String> {
    let mut files = 0;
    let mut problems = 0u64;
    let mut first: Option<String> = None;
    for rule in [LoopRule::Start, LoopRule::Even] {
        let levels = levels_in_dir(dir, G::ID, rule);
        if levels.is_empty() {
            continue;
        }
        files += levels.len();
        let mut set = TableSet::empty(G::ID, rule);
        let mut chain_ok = true;
        for &n in &levels {
            let path = level_path(dir, G::ID, rule, n);
            let t0 = Instant::now();
            match Table::open(&path, G::ID, rule, n, G::PITS) {
                Err(e) => {
                    println!("FAIL {e}");
                    first.get_or_insert_with(|| e.to_string());
                    problems += 1;
                    chain_ok = false;
                }
                Ok(t) => {
                    if !chain_ok || set.covered() != n {
                        println!(
                            "SKIP {}: header and checksum ok; entries not recomputed (a lower level is missing or bad)",
                            path.display()
                        );
                        chain_ok = false;
                        continue;
                    }
                    set.push(t);
                    let entries = set.level(n).map(|t| t.len() as u64).unwrap_or(0);
                    let (bad, count, checked) = match sample {
                        Some(k) => verify_sample::<G>(&set, n, k, 5),
                        None => verify_level::<G>(&set, n, 5).map(|(m, c)| (m, c, entries)),
                    }
                    .map_err(|e| e.to_string())?;
                    if count == 0 {
                        println!(
                            "ok   {} ({checked} of {entries} entries recomputed, {:.2}s)",
                            path.display(),
                            t0.elapsed().as_secs_f64()
                        );
                    } else {
                        problems += count;
                        println!(
                            "FAIL {}: {count} entries differ from their successors",
                            path.display()
                        );
                        for m in bad {
                            println!(
                                "     rank {} board {}: stored lo {} hi {}, recomputed lo {} hi {}",
                                m.index,
                                format_board::<G>(&m.position),
                                m.stored.lo,
                                m.stored.hi,
                                m.recomputed.lo,
                                m.recomputed.hi
                            );
                        }
                        chain_ok = false;
                    }
                }
            }
        }
    }
    Ok((problems, first, files))
}

pub fn cmd_stats<G: Game>(dir: &Path, rule: LoopRule, out: Option<&Path>) -> CmdResult {
    let set = open_for_probe::<G>(dir, rule)?;
    let pb = bar(set.covered() as u64, "levels");
    let stats: Vec<_> = (0..set.covered())
        .map(|n| {
            let s = level_stats::<G>(&set, n);
            pb.inc(1);
            s
        })
        .collect();
    pb.finish_and_clear();
    let md = markdown(G::ID.name(), rule.name(), &stats);
    match out {
        Some(p) => crate::util::write_atomic(p, md.as_bytes())
            .map_err(|e| format!("{}: {e}", p.display()))?,
        None => print!("{md}"),
    }
    Ok(())
}
