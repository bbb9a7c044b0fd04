//! Measures the block codecs of compressed levels (issue 39) on built
//! tables, one thread: for each level and candidate (zstd level × block
//! size × transform), the ratio (raw value bytes ÷ stored block bytes),
//! bits per position, compression MB/s, whole-level decompression MB/s
//! (every block decoded in turn) and µs per cold block probe (2,000
//! blocks at random, each decoded from its stored bytes into a fresh
//! buffer). Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`),
//! so that the figures are per core even on a busy machine. Prints a
//! Markdown table.
//!
//! `compress_measure DIR GAME LEVEL[,LEVEL…] [ZSTD,… [BLOCK,… [TRANSFORM,…]]]`
//! e.g. `compress_measure $SCRATCH adjito 16,18 3,9,19 4096,16384 none,delta,sides`;
//! `STRIDE=k` measures one block in k (spread over the level).
use adji::game::Game;
use adji::tables::compressed::codec::{decode_block, encode_block, BlockPlace, Transform};
use adji::tables::{format::level_path, Table};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

/// This thread's CPU seconds.
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn list<T>(s: Option<&String>, def: &str, f: impl Fn(&str) -> T) -> Vec<T> {
    s.map_or(def, |s| s.as_str()).split(',').map(f).collect()
}

fn run<G: Game>(dir: &str, args: &[String]) {
    let levels = list(args.get(2), "16", |s| s.parse::<u32>().unwrap());
    let zl = list(args.get(3), "3,9,19", |s| s.parse::<i32>().unwrap());
    let bs = list(args.get(4), "4096,16384", |s| s.parse::<usize>().unwrap());
    let ts = list(args.get(5), "none,delta,sides,sides+delta", |s| {
        *Transform::ALL
            .iter()
            .find(|t| t.name() == s)
            .expect("transform")
    });
    let stride: u64 = std::env::var("STRIDE").map_or(1, |s| s.parse().unwrap());
    println!("| game | level | positions | zstd | block | transform | ratio | bits/position | compress MB/s | decompress MB/s | µs/probe |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for &n in &levels {
        let path = level_path(std::path::Path::new(dir), G::RULES, LoopRule::Start, n);
        let t = Table::open(&path, G::RULES, LoopRule::Start, n, G::PITS).unwrap();
        let count = t.len() as u64;
        let mut all = vec![0u8; t.len()];
        t.values_into(0, &mut all).unwrap();
        for &b in &bs {
            for &tr in &ts {
                for &z in &zl {
                    let blocks: Vec<u64> = (0..count.div_ceil(b as u64))
                        .step_by(stride as usize)
                        .collect();
                    let place = |i: u64| BlockPlace {
                        first: i * b as u64,
                        level: n,
                        pits: G::PITS,
                    };
                    let slice = |i: u64| {
                        let f = (i * b as u64) as usize;
                        &all[f..(f + b).min(all.len())]
                    };
                    let t0 = cpu();
                    let stored: Vec<Vec<u8>> = blocks
                        .iter()
                        .map(|&i| encode_block(slice(i), tr, place(i), z).unwrap())
                        .collect();
                    let csecs = cpu() - t0;
                    let raw: usize = blocks.iter().map(|&i| slice(i).len()).sum();
                    let zb: usize = stored.iter().map(Vec::len).sum();
                    let mut out = vec![0u8; b];
                    let t0 = cpu();
                    for (k, &i) in blocks.iter().enumerate() {
                        let o = &mut out[..slice(i).len()];
                        decode_block(&stored[k], tr, place(i), o).unwrap();
                    }
                    let dsecs = cpu() - t0;
                    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
                    let probes = 2000;
                    let t0 = cpu();
                    for _ in 0..probes {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let k = (x % blocks.len() as u64) as usize;
                        let mut o = vec![0u8; slice(blocks[k]).len()];
                        decode_block(&stored[k], tr, place(blocks[k]), &mut o).unwrap();
                        assert_eq!(o, slice(blocks[k]));
                    }
                    let us = (cpu() - t0) * 1e6 / probes as f64;
                    let mb = raw as f64 / 1e6;
                    println!(
                        "| {} | {n} | {count} | {z} | {} KiB | {} | {:.2} | {:.3} | {:.1} | {:.0} | {:.1} |",
                        G::ID, b / 1024, tr.name(),
                        raw as f64 / zb as f64, 8.0 * zb as f64 / raw as f64,
                        mb / csecs, mb / dsecs, us
                    );
                }
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.get(1).map(String::as_str) {
        Some("adjito") => run::<Adjito>(&args[0], &args),
        Some("adjiboto") => run::<AdjiBoto>(&args[0], &args),
        _ => eprintln!(
            "usage: compress_measure DIR GAME LEVEL[,LEVEL…] [ZSTD,…] [BLOCK,…] [TRANSFORM,…]"
        ),
    }
}
