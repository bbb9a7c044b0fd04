//! Perft throughput of both games on one thread (criterion).
//! Run: `cargo bench --bench perft`. Figures: `results/perft.md`.

use adji::game::Game;
use adji::perft::perft;
use adji::{AdjiBoto, Adjito};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench<G: Game>(c: &mut Criterion, name: &str, depth: u32) {
    let start = G::start();
    let nodes = perft::<G>(&start, depth);
    let mut g = c.benchmark_group("perft");
    g.throughput(Throughput::Elements(nodes));
    g.sample_size(20);
    g.bench_function(format!("{name}/start/depth{depth}"), |b| {
        b.iter(|| perft::<G>(std::hint::black_box(&start), depth))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench::<Adjito>(c, "adjito", 7);
    bench::<AdjiBoto>(c, "adjiboto", 12);
}

criterion_group!(perft_benches, benches);
criterion_main!(perft_benches);
