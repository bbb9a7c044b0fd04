//! The table builder's inner loops, on one thread (criterion):
//! - `predecessors`: quiet predecessors generated on packed boards and
//!   ranked, per board, at the top levels built (Adjito 28, Adji-Boto 40),
//!   on a fixed sample of boards;
//! - `seeds`: the threshold scan's test and claim, per cell, on cells with
//!   exit values spread like a level's (about 1.4 % are seeds), and the
//!   boards of the seeds' ranks found one from the other, per board, at
//!   mean gaps of 8, 43 (the scans' typical) and 200 ranks (Adji-Boto 36).
//!
//! Run: `cargo bench --bench preds`. Figures: `results/tables.md` §2,
//! fifth and sixth rounds.

use adji::game::{Game, MAX_PITS};
use adji::index::{level_size, unrank};
use adji::tables::retrograde::{claim_cells, count_predecessors, walk_ranks};
use adji::{AdjiBoto, Adjito};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

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

/// A fixed pseudo-random sequence.
fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// The scan at threshold 10 over 2^24 cell words of a level of 36 seeds:
/// an exit of the level's parity, any counter and flags but the pending
/// ones.
fn bench_claim(c: &mut Criterion) {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let words: Vec<u16> = (0..1usize << 24)
        .map(|_| {
            let x = xorshift(&mut s);
            let v = ((x % 37) as i32 * 2 - 36) as i8 as u8;
            u16::from_le_bytes([v, (x >> 32) as u8 & 63])
        })
        .collect();
    let mut g = c.benchmark_group("seeds");
    g.throughput(Throughput::Elements(words.len() as u64));
    g.sample_size(20);
    g.bench_function("claim/cells", |b| {
        b.iter_batched_ref(
            || words.clone(),
            |w| claim_cells(w, 10),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// The boards of 10^6 ascending ranks of Adji-Boto 36 at a mean gap of
/// `gap` (gaps drawn uniformly from 1 to 2·gap − 1).
fn bench_walk(c: &mut Criterion, gap: u64) {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut r = 0u64;
    let ranks: Vec<u32> = (0..1_000_000)
        .map(|_| {
            r += 1 + xorshift(&mut s) % (2 * gap - 1);
            r as u32
        })
        .collect();
    assert!((r as u128) < level_size(36, AdjiBoto::PITS) as u128);
    let mut g = c.benchmark_group("seeds");
    g.throughput(Throughput::Elements(ranks.len() as u64));
    g.sample_size(20);
    g.bench_function(format!("walk/gap{gap}"), |b| {
        b.iter(|| walk_ranks::<AdjiBoto>(36, std::hint::black_box(&ranks)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench::<Adjito>(c, "adjito", 28);
    bench::<AdjiBoto>(c, "adjiboto", 40);
    bench_claim(c);
    for gap in [8, 43, 200] {
        bench_walk(c, gap);
    }
}

criterion_group!(pred_benches, benches);
criterion_main!(pred_benches);
