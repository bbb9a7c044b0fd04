//! Random probes per second in built tables: `probe_bench GAME DIR LEVEL COUNT`
//! (one thread; run it once after evicting the files from the page cache
//! for a cold figure, then again for a warm one).
use adji::game::Game;
use adji::tables::bench::{random_positions, time_probes};
use adji::tables::TableSet;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

fn run<G: Game>(dir: &str, level: u32, count: usize) {
    let t = std::time::Instant::now();
    let set = TableSet::open_available::<G>(std::path::Path::new(dir), LoopRule::Start).unwrap();
    println!(
        "{} levels 0..{} opened (headers and checksums read) in {:.2} s, {} mapped",
        G::ID,
        set.covered() as i64 - 1,
        t.elapsed().as_secs_f64(),
        set.mapped_bytes()
    );
    let pos = random_positions::<G>(level, count, 12345);
    let (secs, sum) = time_probes::<G>(&set, &pos).expect("level covered");
    println!(
        "{} level {level}: {count} random probes in {secs:.3} s = {:.0} probes/s ({:.0} ns each; checksum {sum})",
        G::ID,
        count as f64 / secs,
        secs * 1e9 / count as f64
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (level, count) = (a[3].parse().unwrap(), a[4].parse().unwrap());
    match a[1].as_str() {
        "adjito" => run::<Adjito>(&a[2], level, count),
        _ => run::<AdjiBoto>(&a[2], level, count),
    }
}
