//! Prints candidate bench positions with their solve cost (no tables, one thread).
use adji::game::*;
use adji::notation::*;
use adji::search::*;
use adji::tt::*;
use adji::{AdjiBoto, Adjito};

fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

fn pick<G: Game>(seed: u64, levels: std::ops::RangeInclusive<u32>, want: usize) {
    let mut rng = seed;
    let mut found = 0;
    while found < want {
        let mut st = State {
            pos: G::start(),
            stores: [0, 0],
        };
        for _ in 0..400 {
            let ml = G::legal_moves(&st.pos);
            if ml.is_empty() || levels.contains(&st.pos.level()) && !st.pos.in_opening() {
                break;
            }
            st = st.play::<G>(ml.get(lcg(&mut rng) as usize % ml.len())).0;
        }
        if !levels.contains(&st.pos.level()) || G::legal_moves(&st.pos).is_empty() {
            continue;
        }
        let tt = AtomicTable::new(16);
        let s = Searcher::<G, _>::new(
            None,
            &tt,
            Options {
                parallel: false,
                pv_max: 0,
                limits: Limits {
                    nodes: Some(30_000_000),
                    time: None,
                },
                ..Options::default()
            },
        )
        .unwrap();
        let a = s.analyse(&st.pos);
        println!(
            "{} level {} value {:?} nodes {} ms {}",
            format_state::<G>(&st),
            st.pos.level(),
            a.value,
            a.stats.nodes,
            a.stats.time_ms
        );
        found += 1;
    }
}
fn main() {
    pick::<Adjito>(5, 14..=20, 8);
    pick::<AdjiBoto>(6, 14..=24, 8);
}
