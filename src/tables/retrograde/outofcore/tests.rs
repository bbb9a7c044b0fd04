use super::*;
use crate::progress::NoProgress;
use crate::tables::{format, Table};
use crate::{AdjiBoto, Adjito};

/// The single-file level `n` that the shards in `dir` merge into.
fn merged<G: Game>(dir: &Path, rule: LoopRule, n: u32) -> Vec<u8> {
    let out = tempfile::tempdir().unwrap();
    crate::tables::convert::merge_level(
        &[dir.to_path_buf()],
        out.path(),
        G::RULES.tables(),
        rule,
        n,
    )
    .unwrap();
    std::fs::read(format::level_path(out.path(), G::RULES.tables(), rule, n)).unwrap()
}

fn config(shards: usize, store: CellStore, wide: bool) -> OocConfig {
    OocConfig {
        shards,
        inbox_bytes: 60,
        store,
        wide,
    }
}

/// Builds levels `0..=max` in memory in one directory, and each level
/// out of core from the same lower levels in another: the merged
/// shards are the in-memory files byte for byte.
fn same_as_in_memory<G: Game>(max: u32, rule: LoopRule, shards: usize, store: CellStore) {
    same_as_in_memory_with::<G>(max, rule, (shards, store), false);
}

/// [`same_as_in_memory`], the boards packed into 128 bits with `wide`.
fn same_as_in_memory_with<G: Game>(
    max: u32,
    rule: LoopRule,
    (shards, store): (usize, CellStore),
    wide: bool,
) {
    let one = tempfile::tempdir().unwrap();
    let mut settled = Vec::new();
    super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |e| {
        settled.push(e.report.as_ref().map(|r| r.kahn_settled));
    })
    .unwrap();
    let d = tempfile::tempdir().unwrap();
    let mut lower = TableSet::empty(G::RULES.tables(), rule);
    for n in 0..=max {
        let c = config(shards, store, wide);
        let r = build_level_out_of_core::<G>(d.path(), rule, n, &lower, &NoProgress, &c).unwrap();
        assert_eq!(r.word_bits, if wide { 128 } else { 64 });
        // The acyclic pass settles the same positions wherever the cells
        // live (the out-of-core report once said 0 for every level).
        assert_eq!(Some(r.kahn_settled), settled[n as usize], "level {n}");
        let want = std::fs::read(format::level_path(one.path(), G::RULES.tables(), rule, n));
        assert!(
            merged::<G>(d.path(), rule, n) == want.unwrap(),
            "{} level {n} {rule:?} S={shards} {store:?}",
            G::ID
        );
        if n >= 6 && shards > 1 {
            assert!(r.update_bytes > 0 && r.spilled_bytes > 0, "{r:?}");
        }
        let path = format::level_path(d.path(), G::RULES.tables(), rule, n);
        lower.push(Table::open(&path, G::RULES.tables(), rule, n, G::PITS).unwrap());
    }
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with(TMP_PREFIX))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn out_of_core_levels_are_byte_identical_to_in_memory() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        same_as_in_memory::<Adjito>(9, rule, 3, CellStore::File);
        same_as_in_memory::<AdjiBoto>(11, rule, 5, CellStore::Mmap);
        same_as_in_memory::<AdjiBoto>(11, rule, 3, CellStore::Kept);
        same_as_in_memory::<Adjito>(9, rule, 4, CellStore::Kept);
    }
    same_as_in_memory::<Adjito>(8, LoopRule::Start, 1, CellStore::Mmap);
    same_as_in_memory::<Adjito>(8, LoopRule::Even, 1, CellStore::Kept);
    same_as_in_memory::<AdjiBoto>(9, LoopRule::Even, 2, CellStore::File);
    same_as_in_memory::<crate::adjito::AdjitoMustReach>(9, LoopRule::Start, 4, CellStore::File);
    same_as_in_memory::<crate::adjito::AdjitoMustReach>(8, LoopRule::Even, 3, CellStore::Mmap);
    // The kept maps under the other rule sets too.
    same_as_in_memory::<crate::adjito::AdjitoMustReach>(8, LoopRule::Start, 2, CellStore::Kept);
    same_as_in_memory::<crate::adjito::AdjitoSlamForbidden>(8, LoopRule::Even, 2, CellStore::Kept);
    same_as_in_memory::<crate::adjiboto::AdjiBotoValdez>(10, LoopRule::Start, 3, CellStore::Kept);
}

/// Out of core with the boards packed into 128 bits (as for the
/// levels beyond 64 bits), the files are the same.
#[test]
fn out_of_core_levels_with_wide_boards_are_byte_identical_to_in_memory() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        same_as_in_memory_with::<Adjito>(9, rule, (3, CellStore::File), true);
        same_as_in_memory_with::<AdjiBoto>(11, rule, (4, CellStore::Mmap), true);
    }
    let reach = (3, CellStore::File);
    same_as_in_memory_with::<crate::adjito::AdjitoMustReach>(9, LoopRule::Start, reach, true);
}

/// Out of core on pools of 1 and of 3 threads, S = 2 and 3: the
/// merged shards are the in-memory files byte for byte.
#[test]
fn out_of_core_on_several_threads_is_byte_identical_to_in_memory() {
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
        pool.build().unwrap().install(|| {
            for (rule, shards) in [LoopRule::Start, LoopRule::Even]
                .into_iter()
                .flat_map(|r| [(r, 2), (r, 3)])
            {
                same_as_in_memory::<Adjito>(8, rule, shards, CellStore::File);
                same_as_in_memory::<AdjiBoto>(10, rule, shards, CellStore::Mmap);
                same_as_in_memory::<Adjito>(8, rule, shards, CellStore::Kept);
            }
        });
    }
}

/// A planned build out of core (S = 3) resumed after one shard of a
/// level was corrupted rebuilds that level only and rewrites only that
/// shard.
#[test]
fn a_resumed_out_of_core_build_rewrites_only_the_bad_shard() {
    use std::os::unix::fs::MetadataExt;
    let (d, rule) = (tempfile::tempdir().unwrap(), LoopRule::Start);
    let rules = Adjito::RULES.tables();
    let plan = super::super::plan_within::<Adjito>(9, u64::MAX, Some(3)).unwrap();
    let c = config(3, CellStore::File, false);
    let build = || {
        let mut evs = Vec::new();
        super::super::build_tables_planned::<Adjito>(d.path(), rule, &plan, &c, &NoProgress, |e| {
            evs.push(e.clone())
        })
        .unwrap();
        evs
    };
    build();
    let bad = shard::shard_path(d.path(), rules, rule, 8, 1, 3);
    let good = shard::shard_path(d.path(), rules, rule, 8, 2, 3);
    let ino = std::fs::metadata(&good).unwrap().ino();
    let mut bytes = std::fs::read(&bad).unwrap();
    let k = bytes.len() / 2;
    bytes[k] ^= 0x11;
    std::fs::write(&bad, bytes).unwrap();
    let evs = build();
    for e in &evs {
        assert_eq!(e.skipped, e.level != 8, "level {}", e.level);
    }
    let rebuilt = evs[8].ooc.as_ref().expect("level 8 built out of core");
    assert!(evs[8].replaced.is_some());
    assert_eq!(rebuilt.shards_kept, 2);
    assert_eq!(std::fs::metadata(&good).unwrap().ino(), ino);
    let one = tempfile::tempdir().unwrap();
    super::super::build_tables::<Adjito>(one.path(), rule, 9, &NoProgress, |_| {}).unwrap();
    for n in 0..=9 {
        let want = std::fs::read(format::level_path(one.path(), rules, rule, n)).unwrap();
        let got = match n {
            0 => std::fs::read(format::level_path(d.path(), rules, rule, n)).unwrap(),
            _ => merged::<Adjito>(d.path(), rule, n),
        };
        assert!(got == want, "level {n}");
    }
}
