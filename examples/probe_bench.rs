//! Random probes per second in built tables:
//! `probe_bench GAME DIR LEVEL COUNT [CACHE_MIB]` (one thread). With
//! CACHE_MIB (MiB, e.g. 256), the compressed levels' caches are shaped for that
//! budget (`TableSet::fit_caches`: the smallest levels that fit keep
//! every block once decoded); without it, as opened. The tables are opened with `OpenCheck::Header`, which
//! reads no value byte: run it once after evicting the files from the page
//! cache for a cold figure (`scripts/evict.py FILES`), then after reading
//! them through (`cat FILES > /dev/null`) for a warm one.
use adji::game::Game;
use adji::tables::bench::{random_positions, time_probes};
use adji::tables::{OpenCheck, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

fn run<G: Game>(dir: &str, level: u32, count: usize, cache: Option<u64>) {
    let t = std::time::Instant::now();
    let dir = std::path::Path::new(dir);
    let mut set =
        TableSet::open_available_checked::<G>(dir, LoopRule::Start, OpenCheck::Header).unwrap();
    if let Some(bytes) = cache {
        let held = set.fit_caches(bytes);
        println!("caches shaped for {bytes} bytes: {held} bytes at most");
    }
    println!(
        "{} levels 0..{} opened (headers and exception lists read) in {:.2} s, {} mapped",
        G::ID,
        set.covered() as i64 - 1,
        t.elapsed().as_secs_f64(),
        set.mapped_bytes()
    );
    // Two passes over different positions: the first also pays for mapping
    // each page into this process (and, cold, for reading it from disk).
    for (pass, seed) in [(1, 12345), (2, 67890)] {
        let pos = random_positions::<G>(level, count, seed);
        let cpu = cpu_seconds();
        let (secs, sum) = time_probes::<G>(&set, &pos).expect("level covered");
        println!(
            "{} level {level} pass {pass}: {count} random probes in {secs:.3} s wall, {:.3} s CPU = {:.0} probes/s ({:.0} ns each; checksum {sum})",
            G::ID,
            cpu_seconds() - cpu,
            count as f64 / secs,
            secs * 1e9 / count as f64
        );
    }
}

/// This process's user + system CPU seconds (Linux `/proc/self/stat`; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
    f.get(11)
        .zip(f.get(12))
        .map_or(0.0, |(u, s)| (u + s) / 100.0)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: probe_bench GAME DIR LEVEL COUNT [CACHE_MIB]");
        std::process::exit(2);
    }
    let (level, count) = (a[3].parse().unwrap(), a[4].parse().unwrap());
    let cache = a.get(5).map(|c| c.parse::<u64>().unwrap() << 20);
    match a[1].as_str() {
        "adjito" => run::<Adjito>(&a[2], level, count, cache),
        _ => run::<AdjiBoto>(&a[2], level, count, cache),
    }
}
