/// Per-rank plans: the slices' cells add up to the one-process level's,
/// rank 0 needs no more than the others, and the worst plan is each
/// level's largest peak over the ranks.
#[test]
fn rank_plans_split_the_level_and_the_worst_is_the_largest() {
    // The parts' cells carry their plane of `hi` bytes: the one-process
    // level's positions at the parts' bytes a position.
    let one = super::super::plan::<crate::Adjito>(16).unwrap();
    for p in 1..=3 {
        let plans: Vec<_> = (0..p)
            .map(|r| rank_plan::<crate::Adjito>(16, r, (p, false)).unwrap())
            .collect();
        let worst = worst_rank_plan::<crate::Adjito>(16, (p, false)).unwrap();
        for (n, l) in one.iter().enumerate() {
            let cells = plans.iter().map(|pl| pl[n].work_bytes).sum::<u64>();
            let whole = (work_per_position::<crate::Adjito>(n as u32) * l.positions as f64) as u64;
            assert!(cells.abs_diff(whole) <= p as u64, "level {n}, {p} ranks");
            let peak = plans.iter().map(|pl| pl[n].peak_bytes).max();
            assert_eq!(Some(worst[n].peak_bytes), peak);
            assert!(plans[0][n].peak_bytes <= plans[p - 1][n].peak_bytes + 5);
            // Each rank in its own directory maps its share of the
            // lower levels only.
            let own = rank_plan::<crate::Adjito>(16, 0, (p, true)).unwrap();
            assert_eq!(own[n].lower_bytes, l.lower_bytes.div_ceil(p as u64));
        }
    }
}

use super::*;
use crate::distributed::LocalComm;
use crate::progress::NoProgress;
use crate::{AdjiBoto, Adjito};
use std::path::PathBuf;

/// The single-file level `n` that the shards of `dirs` merge into.
pub(crate) fn merged<G: Game>(dirs: &[PathBuf], rule: LoopRule, n: u32) -> Vec<u8> {
    let out = tempfile::tempdir().unwrap();
    crate::tables::convert::merge_level(dirs, out.path(), G::RULES.tables(), rule, n).unwrap();
    std::fs::read(format::level_path(out.path(), G::RULES.tables(), rule, n)).unwrap()
}

/// The one-process file of level `n` in `dir`.
fn file<G: Game>(dir: &Path, rule: LoopRule, n: u32) -> Vec<u8> {
    std::fs::read(format::level_path(dir, G::RULES.tables(), rule, n)).unwrap()
}

/// Builds levels `0..=max` over `p` ranks, rank `r` in `dirs[r]`;
/// returns rank 0's reports of the levels built.
fn build_over<G: Game>(dirs: &[PathBuf], rule: LoopRule, max: u32) -> Vec<DistLevelReport> {
    build_over_with::<G>(dirs, rule, max, false)
}

/// [`build_over`], the boards packed into 128 bits with `wide`.
fn build_over_with<G: Game>(
    dirs: &[PathBuf],
    rule: LoopRule,
    max: u32,
    wide: bool,
) -> Vec<DistLevelReport> {
    let reports = LocalComm::run(dirs.len(), |c| {
        let mut built = Vec::new();
        let dir = &dirs[c.rank()];
        let on = |_: &BuildEvent, r: Option<&DistLevelReport>| built.extend(r.cloned());
        build_tables_distributed_with::<G>(c, dir, rule, max, &NoProgress, on, wide).unwrap();
        built
    });
    let bits = if wide { 128 } else { 64 };
    let reports = reports.into_iter().next().unwrap();
    for r in reports.iter().flat_map(|l| &l.ranks) {
        assert_eq!(r.word_bits, bits);
    }
    reports
}

/// With boards packed into 128 bits, over 3 ranks in one directory
/// each (lookups over the ranks), the merged shards are the
/// one-process files byte for byte.
fn wide_same_as_one_process<G: Game>(max: u32, rule: LoopRule) {
    let one = tempfile::tempdir().unwrap();
    super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |_| {}).unwrap();
    let own: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let dirs: Vec<PathBuf> = own.iter().map(|t| t.path().to_path_buf()).collect();
    let reports = build_over_with::<G>(&dirs, rule, max, true);
    assert_eq!(reports.len(), max as usize + 1);
    for n in 0..=max {
        assert!(
            merged::<G>(&dirs, rule, n) == file::<G>(one.path(), rule, n),
            "{} wide {rule:?} level {n}",
            G::ID
        );
    }
}

#[test]
fn distributed_builds_with_wide_boards_are_byte_identical_to_one_process() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        wide_same_as_one_process::<Adjito>(9, rule);
        wide_same_as_one_process::<AdjiBoto>(11, rule);
    }
    wide_same_as_one_process::<crate::adjito::AdjitoMustReach>(9, LoopRule::Start);
}

/// With `P` = 1..4 ranks, in one shared directory and in one directory
/// per rank (each holding its own shards only, lookups asked of the
/// others), the merged shards are the one-process files byte for byte.
fn same_as_one_process<G: Game>(max: u32, rule: LoopRule) {
    let one = tempfile::tempdir().unwrap();
    super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |_| {}).unwrap();
    for p in 1..=4 {
        let d = tempfile::tempdir().unwrap();
        let reports = build_over::<G>(&vec![d.path().to_path_buf(); p], rule, max);
        for n in 0..=max {
            let got = merged::<G>(&[d.path().to_path_buf()], rule, n);
            assert!(
                got == file::<G>(one.path(), rule, n),
                "{} P={p} {rule:?} level {n}",
                G::ID
            );
        }
        let top = reports.last().expect("rank 0 reports each level");
        assert_eq!(top.ranks.len(), p);
        // The phases' CPU is the computation's, split: none negative,
        // together no more than it (the rest is setup and finishing).
        for r in &top.ranks {
            let phases: f64 = r.phase_cpu_secs.iter().sum();
            assert!(r.phase_cpu_secs.iter().all(|&x| x >= -1e-9), "{r:?}");
            assert!(phases <= r.compute_cpu_secs + 1e-6, "{r:?}");
        }
        let sent: u64 = top.ranks.iter().map(|r| r.bytes_sent).sum();
        assert_eq!(sent > 0, p > 1, "updates cross slices only with P > 1");
        if p != 3 {
            continue;
        }
        // One directory per rank, empty at the start; at levels 9 and
        // 11 a rank's slice spans several lookup blocks.
        let own: Vec<_> = (0..p).map(|_| tempfile::tempdir().unwrap()).collect();
        let dirs: Vec<PathBuf> = own.iter().map(|t| t.path().to_path_buf()).collect();
        let reports = build_over::<G>(&dirs, rule, max);
        only_own_shards::<G>(&dirs, rule, max);
        for n in 0..=max {
            assert!(
                merged::<G>(&dirs, rule, n) == file::<G>(one.path(), rule, n),
                "{} P={p} per-rank dirs level {n}",
                G::ID
            );
        }
        let asked: u64 = reports
            .iter()
            .flat_map(|l| &l.ranks)
            .map(|r| r.lookup_requests)
            .sum();
        assert_eq!(asked > 0, p > 1, "lookups cross slices only with P > 1");
    }
}

/// Each directory of `dirs` holds, of every level, rank `r`'s shard and
/// the manifest only.
fn only_own_shards<G: Game>(dirs: &[PathBuf], rule: LoopRule, max: u32) {
    let (rules, p) = (G::RULES.tables(), dirs.len() as u32);
    for (r, d) in dirs.iter().enumerate() {
        for n in 0..=max {
            for i in 0..p {
                let s = shard::shard_path(d, rules, rule, n, i, p);
                assert_eq!(s.exists(), i == r as u32, "{}", s.display());
            }
            assert!(!format::level_path(d, rules, rule, n).exists());
        }
    }
}

#[test]
fn distributed_builds_are_byte_identical_to_one_process() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        same_as_one_process::<Adjito>(9, rule);
        same_as_one_process::<AdjiBoto>(11, rule);
    }
    same_as_one_process::<crate::adjito::AdjitoMustReach>(9, LoopRule::Start);
}

/// Ranks running every pass on pools of 1 and of 3 threads (a pool a
/// rank, as under MPI; on 3, each rank in its own directory) write
/// shards that merge into the one-process files, for P = 2 and 3.
fn same_on_threads<G: Game>(max: u32, rule: LoopRule) {
    let one = tempfile::tempdir().unwrap();
    super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |_| {}).unwrap();
    for (threads, p) in [(1, 2), (1, 3), (3, 2), (3, 3)] {
        // On 3 threads, a directory a rank (lookups over the ranks).
        let own: Vec<_> = (0..p).map(|_| tempfile::tempdir().unwrap()).collect();
        let dirs: Vec<PathBuf> = match threads {
            3 => own.iter().map(|t| t.path().to_path_buf()).collect(),
            _ => vec![own[0].path().to_path_buf(); p],
        };
        LocalComm::run(p, |c| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
            pool.build().unwrap().install(|| {
                build_tables_distributed::<G>(c, &dirs[c.rank()], rule, max, &NoProgress, |_, _| {})
                    .unwrap()
            })
        });
        for n in 0..=max {
            let got = merged::<G>(&dirs, rule, n);
            let want = file::<G>(one.path(), rule, n);
            assert!(
                got == want,
                "{} {rule:?} P={p} T={threads} level {n}",
                G::ID
            );
        }
    }
}

#[test]
fn ranks_on_several_threads_are_byte_identical_to_one_process() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        same_on_threads::<Adjito>(8, rule);
        same_on_threads::<AdjiBoto>(10, rule);
    }
}

/// A rank whose directory holds a lower level neither whole nor as its
/// own shard (its shard of another split) stops, naming the level.
#[test]
fn a_rank_without_its_share_of_a_lower_level_stops_naming_it() {
    let own: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let dirs: Vec<PathBuf> = own.iter().map(|t| t.path().to_path_buf()).collect();
    build_over::<Adjito>(&dirs[..2], LoopRule::Start, 4);
    // Directories of a two-rank build, read by three ranks: ranks 0 and
    // 1 hold shards of two, rank 2 nothing.
    let errs = LocalComm::run(3, |c| {
        let mut lower = Lower::new(
            TableSet::empty(Adjito::RULES.tables(), LoopRule::Start),
            c.rank(),
        );
        open_lower::<Adjito>(&dirs[c.rank()], LoopRule::Start, (5, 3), &mut lower)
            .err()
            .map(|e| e.to_string())
    });
    for (r, e) in errs.iter().enumerate() {
        let e = e
            .as_ref()
            .unwrap_or_else(|| panic!("rank {r} found its shards"));
        assert!(
            e.contains("level 0 is in this rank's directory neither whole"),
            "{e}"
        );
        assert!(e.contains(&format!("own shard {r} of 3")), "{e}");
    }
}

#[test]
fn a_resumed_distributed_build_rebuilds_only_the_bad_shards_level() {
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir().unwrap();
    let rule = LoopRule::Start;
    let rules = Adjito::RULES.tables();
    LocalComm::run(2, |c| {
        build_tables_distributed::<Adjito>(c, d.path(), rule, 5, &NoProgress, |_, _| {}).unwrap();
    });
    let s0 = shard::shard_path(d.path(), rules, rule, 5, 0, 2);
    let s1 = shard::shard_path(d.path(), rules, rule, 5, 1, 2);
    let ino = std::fs::metadata(&s0).unwrap().ino();
    let mut bytes = std::fs::read(&s1).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&s1, bytes).unwrap();
    let kept = LocalComm::run(2, |c| {
        let mut kept = Vec::new();
        build_tables_distributed::<Adjito>(c, d.path(), rule, 7, &NoProgress, |e, _| {
            kept.push((e.level, e.skipped))
        })
        .unwrap();
        kept
    });
    let want: Vec<_> = (0..=7).map(|n| (n, n != 5 && n < 6)).collect();
    assert_eq!(kept[0], want);
    assert_eq!(
        std::fs::metadata(&s0).unwrap().ino(),
        ino,
        "the good shard is kept"
    );
    let one = tempfile::tempdir().unwrap();
    super::super::build_tables::<Adjito>(one.path(), rule, 7, &NoProgress, |_| {}).unwrap();
    for n in 0..=7 {
        let got = merged::<Adjito>(&[d.path().to_path_buf()], rule, n);
        assert!(got == file::<Adjito>(one.path(), rule, n), "level {n}");
    }
}
