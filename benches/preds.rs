//! The table builder's inner loop: quiet predecessors generated on packed
//! boards and ranked, per board, on one thread (criterion), at the top
//! levels built (Adjito 28, Adji-Boto 40), on a fixed sample of boards.
//! Run: `cargo bench --bench preds`. Figures: `results/tables.md` §2, fifth round.

use adji::game::{Game, MAX_PITS};
use adji::index::{level_size, unrank};
use adji::tables::build::count_predecessors;
use adji::{AdjiBoto, Adjito};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// `count` boards of level `n` at pseudo-random ranks (a fixed sequence).
fn sample<G: Game>(n: u32, count: usize) -> Vec<[u8; MAX_PITS]> {
    let size = level_size(n as usize, G::PITS);
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    (0..count)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            unrank(s % size, n as usize, G::PITS)
        })
        .collect()
}

fn bench<G: Game>(c: &mut Criterion, name: &str, n: u32) {
    let boards = sample::<G>(n, 100_000);
    let mut g = c.benchmark_group("predecessors");
    g.throughput(Throughput::Elements(boards.len() as u64));
    g.sample_size(30);
    g.bench_function(format!("{name}/level{n}"), |b| {
        b.iter(|| count_predecessors::<G>(std::hint::black_box(&boards)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench::<Adjito>(c, "adjito", 28);
    bench::<AdjiBoto>(c, "adjiboto", 40);
}

criterion_group!(pred_benches, benches);
criterion_main!(pred_benches);
