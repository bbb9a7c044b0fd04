//! Tests of the builder's word widths, limits and plans.

use super::*;
use crate::adjito::AdjitoMustReach;
use crate::progress::NoProgress;
use crate::{AdjiBoto, Adjito};

/// Levels `0..=max` built one by one with 64-bit boards (the default)
/// and with 128-bit boards forced, each from the same lower levels
/// (the built tables: a level's captures look lower only),
/// under the default configuration and a tiny frontier cap (the
/// pending-bit path): the planes (a file's entries) are identical.
fn wide_is_narrow<G: Game>(max: u32, rule: LoopRule) {
    let d = tempfile::tempdir().unwrap();
    let lower = build_tables::<G>(d.path(), rule, max, &NoProgress, |_| {}).unwrap();
    for n in 0..=max {
        let size = check_size::<G>(n).unwrap() as usize;
        let tiny = BuildConfig {
            cap: 64,
            ..BuildConfig::for_size(size)
        };
        for config in [BuildConfig::for_size(size), tiny] {
            let (lo, hi, r) = build_level_with::<G>(n, &lower, &NoProgress, &config).unwrap();
            let wide = BuildConfig {
                wide: true,
                ..config
            };
            let (wlo, whi, w) = build_level_with::<G>(n, &lower, &NoProgress, &wide).unwrap();
            assert_eq!((r.word_bits, w.word_bits), (64, 128));
            assert!(lo == wlo && hi == whi, "{:?} {rule:?} level {n}", G::ID);
        }
    }
}

#[test]
fn levels_built_with_wide_boards_are_byte_identical() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        wide_is_narrow::<Adjito>(10, rule);
        wide_is_narrow::<AdjiBoto>(12, rule);
        wide_is_narrow::<AdjitoMustReach>(9, rule);
    }
}

/// The cost of the wide word, measured (not a test: it asserts only
/// that both words give the same level): Adjito level `ADJI_LEVEL`
/// (default 16) from the lower levels in `ADJI_TABLES`, on one thread,
/// built with 64-bit and with 128-bit boards in turn, three times;
/// prints the CPU seconds of each build and of the floor pass.
/// `ADJI_TABLES=/work/tables cargo test --release --lib
/// measure_the_wide_word -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_the_wide_word() {
    use crate::distributed::process_cpu_secs;
    let dir = std::env::var("ADJI_TABLES").expect("ADJI_TABLES: a directory of tables");
    let n: u32 = std::env::var("ADJI_LEVEL").map_or(16, |v| v.parse().unwrap());
    let lower = TableSet::open::<Adjito>(Path::new(&dir), LoopRule::Start, n - 1).unwrap();
    let config = BuildConfig::for_size(check_size::<Adjito>(n).unwrap() as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let mut want = None;
        for round in 0..3 {
            let c = process_cpu_secs();
            floor_pass::<Adjito>(n);
            let floor = process_cpu_secs() - c;
            let mut secs = [0.0; 2];
            for (k, wide) in [false, true].into_iter().enumerate() {
                let c = process_cpu_secs();
                let config = BuildConfig {
                    wide,
                    ..config.clone()
                };
                let (b, r) = build_level_bounds::<Adjito>(n, &lower, &NoProgress, &config).unwrap();
                secs[k] = process_cpu_secs() - c;
                let planes = b.into_planes();
                assert_eq!(r.word_bits, [64, 128][k]);
                assert!(want.get_or_insert_with(|| planes.clone()) == &planes);
            }
            println!(
                "round {round}: level {n} floor {floor:.2} s, u64 {:.2} s ({:.2} floors), \
                 u128 {:.2} s ({:.2} floors), u128/u64 {:.3}",
                secs[0],
                secs[0] / floor,
                secs[1],
                secs[1] / floor,
                secs[1] / secs[0]
            );
        }
    });
}

/// The sharded builders take every level of both games (boards beyond
/// 64 bits in 128); the one-process builder every level below 2^40
/// positions (Adji-Boto 86 has 1.13·10^12).
#[test]
fn the_sharded_builders_take_every_level() {
    assert_eq!(max_sharded_level::<Adjito>(), 48);
    assert_eq!(max_sharded_level::<AdjitoMustReach>(), 48);
    assert_eq!(max_sharded_level::<AdjiBoto>(), 100);
    assert!(check_size_sharded::<Adjito>(48).is_ok());
    assert!(check_size_sharded::<Adjito>(49).is_err());
    assert!(check_size_sharded::<AdjiBoto>(100).is_ok());
    assert!(check_size_sharded::<AdjiBoto>(101).is_err());
    assert_eq!(max_build_level::<Adjito>(), 48);
    assert_eq!(max_build_level::<AdjiBoto>(), 85);
    assert!(check_size::<AdjiBoto>(44).is_ok());
    // 64 bits hold Adjito to 31 and Adji-Boto to 63 only.
    assert!(packed::packs::<Adjito, u64>(31) && !packed::packs::<Adjito, u64>(32));
    assert!(packed::packs::<AdjiBoto, u64>(63) && !packed::packs::<AdjiBoto, u64>(64));
    let plan = plan_within::<Adjito>(48, 1 << 34, None).unwrap();
    assert_eq!(plan.len(), 49);
    assert!(plan[48].shards > 1);
}

/// A level whose boards need the 128-bit word has frontier entries of
/// 16 bytes: every plan counts twice the frontier bytes for it (the
/// plans counted 8-byte entries everywhere before). In memory the
/// cells take 2 bytes a position and the frontiers at most
/// [`FRONTIER_CAP`] entries a list; in parts, 3 and half a byte.
#[test]
fn plans_count_the_wide_words_frontier_entries() {
    let boto = plan_sharded::<AdjiBoto>(64).unwrap();
    for l in [&boto[63], &boto[64]] {
        let cells = (CELL_BYTES * l.positions as f64) as u64;
        assert_eq!(
            l.work_bytes,
            cells + frontier_bytes::<AdjiBoto>(l.level, l.positions)
        );
    }
    let cap = 32 * FRONTIER_CAP as u64;
    assert_eq!(frontier_bytes::<AdjiBoto>(63, boto[63].positions), cap);
    assert_eq!(frontier_bytes::<AdjiBoto>(64, boto[64].positions), 2 * cap);
    assert!((boto[63].work_bytes as f64 / boto[63].positions as f64) < 2.01);
    let narrow = SAFE_CELL_BYTES + FRONTIER_BYTES;
    let wide = SAFE_CELL_BYTES + 2.0 * FRONTIER_BYTES;
    let near = |a: f64, b: f64| (a - b).abs() < 1e-6;
    assert!(near(work_per_position::<Adjito>(31), narrow));
    assert!(near(work_per_position::<Adjito>(32), wide));
    let ranks = dist::rank_plan::<Adjito>(32, 0, (4, true)).unwrap();
    let slice = crate::distributed::share(ranks[32].positions, 0, 4);
    let mine = (slice.end - slice.start) as f64;
    assert!(near(ranks[32].work_bytes as f64 / mine, wide));
    // Out of core (8 GiB holds neither Adjito 32's cells, 11.5 GB, nor
    // its lower levels, 15.3 GB): the shard count follows from the
    // wider positions.
    let budget = 1 << 33;
    let ooc = plan_within::<Adjito>(32, budget, None).unwrap();
    let fixed = OVERHEAD_BYTES + inbox_bytes(budget);
    let most = ((budget - fixed) as f64 / wide) as u64;
    assert_eq!(
        ooc[32].shards as u64,
        ooc[32].positions.div_ceil(most).max(2)
    );
}
