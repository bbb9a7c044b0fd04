//! How much a model of the values, rather than of the bytes, could save
//! (issue 39): on a sample of a built level, the empirical entropy of the
//! stored value bytes alone, given the previous byte in rank order, given
//! the **capture bound** `E(p)` (the best capture's value,
//! `captured − value(child)`, read from the lower levels: what a decoder
//! can compute from the position and the levels below, without the level
//! itself), given both, and given `E(p)` with the previous position's
//! residual (stored − `E`, or none when it had no capture). Also the share of positions that have a
//! capture, the share whose stored byte equals `E(p)`, and the wall
//! nanoseconds a position that computing `E(p)` takes (a block decoder's
//! floor for such a model).
//!
//! The entropies are static conditional entropies of the sample (the cost
//! of sending the model is not counted), so they are bounds of what a coder
//! with that context reaches, to be set beside zstd's bits a position.
//!
//! `value_model GAME DIR LEVEL [STRIDE]`: blocks of 4,096 consecutive ranks,
//! one in STRIDE (default 8), spread over the level; one thread.
use std::collections::HashMap;
use std::hash::Hash;

use adji::game::Game;
use adji::tables::dontcare::capture_bound;
use adji::tables::{level_positions, OpenCheck, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

const BLOCK: u64 = 4096;
/// The context of a position without a capture.
const NO_CAPTURE: i32 = i32::MIN;

/// Empirical entropy in bits of `y` given the context, over a count map
/// keyed by (context, y).
fn cond_entropy<C: Hash + Eq + Copy>(joint: &HashMap<(C, u8), u64>) -> f64 {
    let mut ctx: HashMap<C, u64> = HashMap::new();
    let mut total = 0u64;
    for (&(c, _), &n) in joint {
        *ctx.entry(c).or_default() += n;
        total += n;
    }
    let mut h = 0.0;
    for (&(c, _), &n) in joint {
        let p_joint = n as f64 / total as f64;
        let p_cond = n as f64 / ctx[&c] as f64;
        h -= p_joint * p_cond.log2();
    }
    h
}

fn run<G: Game>(dir: &str, level: u32, stride: u64) {
    let set = TableSet::open_available_checked::<G>(
        std::path::Path::new(dir),
        LoopRule::Start,
        OpenCheck::Header,
    )
    .expect("tables open");
    let table = set.level(level).expect("level present");
    let size = table.len() as u64;
    let (mut h0, mut hp, mut he, mut hep, mut her) = (
        HashMap::new(),
        HashMap::new(),
        HashMap::new(),
        HashMap::new(),
        HashMap::new(),
    );
    let (mut n, mut with_capture, mut equal) = (0u64, 0u64, 0u64);
    let mut secs = 0.0;
    let mut bytes = vec![0u8; BLOCK as usize];
    for b in (0..size.div_ceil(BLOCK)).step_by(stride as usize) {
        let first = b * BLOCK;
        let last = (first + BLOCK).min(size);
        let block = &mut bytes[..(last - first) as usize];
        table.values_into(first as usize, block).unwrap();
        // The capture bounds of the block first, timed apart: what a decoder
        // of such a block would compute before it could read a value.
        let t = std::time::Instant::now();
        let bests: Vec<i32> = level_positions::<G>(level, first..last)
            .map(|(_, pos)| {
                capture_bound::<G>(&set, &pos)
                    .expect("lower level present")
                    .unwrap_or(NO_CAPTURE)
            })
            .collect();
        secs += t.elapsed().as_secs_f64();
        let (mut prev, mut prev_res) = (0u8, NO_CAPTURE);
        for (&byte, &best) in block.iter().zip(&bests) {
            n += 1;
            if best != NO_CAPTURE {
                with_capture += 1;
                equal += u64::from(byte as i8 as i32 == best);
            }
            *h0.entry(((), byte)).or_insert(0u64) += 1;
            *hp.entry((prev, byte)).or_insert(0u64) += 1;
            *he.entry((best, byte)).or_insert(0u64) += 1;
            *hep.entry(((best, prev), byte)).or_insert(0u64) += 1;
            *her.entry(((best, prev_res), byte)).or_insert(0u64) += 1;
            prev = byte;
            prev_res = if best == NO_CAPTURE {
                NO_CAPTURE
            } else {
                byte as i8 as i32 - best
            };
        }
    }
    let bits = |h: f64| format!("{h:.3} ({:.2}×)", 8.0 / h);
    println!(
        "| {} | {level} | {size} | {n} | {:.1}% | {:.1}% | {} | {} | {} | {} | {} | {:.0} |",
        G::ID,
        100.0 * with_capture as f64 / n as f64,
        100.0 * equal as f64 / n as f64,
        bits(cond_entropy(&h0)),
        bits(cond_entropy(&hp)),
        bits(cond_entropy(&he)),
        bits(cond_entropy(&hep)),
        bits(cond_entropy(&her)),
        secs * 1e9 / n as f64,
    );
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 3 {
        eprintln!("usage: value_model GAME DIR LEVEL [STRIDE]");
        std::process::exit(2);
    }
    let level: u32 = a[2].parse().expect("LEVEL");
    let stride = a.get(3).map_or(8, |s| s.parse().expect("STRIDE"));
    match a[0].as_str() {
        "adjito" => run::<Adjito>(&a[1], level, stride),
        "adjiboto" => run::<AdjiBoto>(&a[1], level, stride),
        g => {
            eprintln!("unknown game {g}");
            std::process::exit(2);
        }
    }
}
