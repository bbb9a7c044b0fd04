//! Run-to-run spread of 1- and 2-thread search on the Adjito bench suite.
use adji::bench::ADJITO;
use adji::game::*;
use adji::notation::*;
use adji::search::*;
use adji::tt::*;
use adji::Adjito;
fn main() {
    let ps: Vec<Position> = ADJITO
        .iter()
        .map(|s| parse_state::<Adjito>(s, Stores::Required).unwrap().pos)
        .collect();
    for threads in [1, 2, 1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let tt = AtomicTable::new(64);
        let t = std::time::Instant::now();
        let mut per = vec![];
        for p in &ps {
            tt.new_generation();
            let s = Searcher::<Adjito, _>::new(
                None,
                &tt,
                Options {
                    parallel: threads > 1,
                    pv_max: 0,
                    ..Options::default()
                },
            )
            .unwrap();
            let a = pool.install(|| s.analyse(p));
            per.push(a.stats.nodes);
        }
        println!(
            "threads {threads}: {:.3}s {:?}",
            t.elapsed().as_secs_f64(),
            per
        );
    }
}
