//! Table files: every kind of bad file gives a typed error, never a panic;
//! resume keeps finished levels; verify passes on what the tests build.

use std::path::Path;

use adji::game::{Game, GameId};
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::tables::format::{Header, HEADER_LEN};
use adji::tables::retrograde::build_tables;
use adji::tables::verify::LevelOutcome;
use adji::tables::{level_path, TableError, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};
use proptest::prelude::*;

mod common;
use common::forge;
use common::tables::{adjito_level_file, build, open, verify_adjito};

#[test]
fn bad_files_give_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 4);
    let p = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 4);
    let good = std::fs::read(&p).unwrap();

    // Truncated payload.
    std::fs::write(&p, &good[..good.len() - 10]).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Truncated { .. })
    ));
    // Truncated header.
    std::fs::write(&p, &good[..20]).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Truncated { .. })
    ));
    // Corrupt payload byte.
    let mut bad = good.clone();
    bad[HEADER_LEN + 7] ^= 0x40;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Corrupted { .. })
    ));
    // Corrupt header byte.
    let mut bad = good.clone();
    bad[17] ^= 1;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Corrupted { .. })
    ));
    // Not a table.
    std::fs::write(&p, vec![b'x'; 200]).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::NotATable { .. })
    ));
    // Wrong game: an Adji-Boto file under an Adjito name.
    let other = tempfile::tempdir().unwrap();
    build::<AdjiBoto>(other.path(), LoopRule::Start, 4);
    std::fs::copy(
        level_path(other.path(), RuleSet::AdjiBotoDefault, LoopRule::Start, 4),
        &p,
    )
    .unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::WrongGame { .. })
    ));
    std::fs::write(&p, &good).unwrap();
    // Wrong rule: the start file read as even.
    let even = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Even, 4);
    std::fs::copy(&p, &even).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Even, 4),
        Err(TableError::WrongRule { .. })
    ));
    // Wrong level.
    std::fs::copy(
        &p,
        level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 3),
    )
    .unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 3),
        Err(TableError::WrongLevel { .. })
    ));
    // Missing.
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 9),
        Err(TableError::Missing { .. })
    ));
}

#[test]
fn building_on_lower_levels_of_the_other_rule_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 3);
    // Put a start-rule file where the even-rule level 0 should be.
    std::fs::copy(
        level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 0),
        level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Even, 0),
    )
    .unwrap();
    let r = build_tables::<Adjito>(dir.path(), LoopRule::Even, 3, &NoProgress, |_| {});
    assert!(matches!(r, Err(TableError::WrongRule { .. })));
}

#[test]
fn resume_keeps_finished_levels_and_rebuilds_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 6);
    let p5 = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 5);
    let good5 = std::fs::read(&p5).unwrap();
    // Simulate an interrupted build: level 6 missing, level 5 truncated.
    std::fs::remove_file(level_path(
        dir.path(),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        6,
    ))
    .unwrap();
    std::fs::write(&p5, &good5[..good5.len() / 2]).unwrap();
    let mut events = Vec::new();
    build_tables::<Adjito>(dir.path(), LoopRule::Start, 6, &NoProgress, |e| {
        events.push((e.level, e.skipped))
    })
    .unwrap();
    assert_eq!(
        events,
        vec![
            (0, true),
            (1, true),
            (2, true),
            (3, true),
            (4, true),
            (5, false),
            (6, false)
        ]
    );
    assert_eq!(std::fs::read(&p5).unwrap(), good5);
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

proptest! {
    #[test]
    fn header_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Header::decode(Path::new("x"), &bytes);
    }

    #[test]
    fn header_reader_rejects_flipped_bits(bit in 0usize..(HEADER_LEN * 8)) {
        let h = Header { game: GameId::Adjito, rules: RuleSet::AdjitoDefault, rule: LoopRule::Start, level: 5, count: 4368,
            exceptions: 3, tool: "adji test".into(), payload_crc: 7 };
        let mut b = h.encode().to_vec();
        prop_assert_eq!(Header::decode(Path::new("x"), &b).unwrap(), h);
        b[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(Header::decode(Path::new("x"), &b).is_err());
    }
}

/// Runs `f` on another thread and fails the test if it does not return
/// within 20 s (a FIFO opened for reading blocks until a writer appears).
fn within_20s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("hangs (did it open a FIFO?)")
}

#[cfg(unix)]
fn mkfifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo failed");
}

#[cfg(unix)]
#[test]
fn a_fifo_named_like_a_table_is_refused_without_hanging() {
    // Issue 8, D4: open, resume-build and verify each refuse the FIFO.
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 4);
    let p = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 3);
    std::fs::remove_file(&p).unwrap();
    mkfifo(&p);
    let d = dir.path().to_path_buf();
    let e = within_20s(move || open(&d, GameId::Adjito, LoopRule::Start, 3).err());
    let e = e.expect("a FIFO must not open as a table");
    assert!(matches!(e, TableError::NotRegular { .. }), "{e:?}");
    assert!(e.to_string().contains("FIFO"), "{e}");
    let d = dir.path().to_path_buf();
    let r = within_20s(move || {
        build_tables::<Adjito>(&d, LoopRule::Start, 4, &NoProgress, |_| {})
            .err()
            .map(|e| e.to_string())
    });
    assert!(r.expect("build over a FIFO must fail").contains("FIFO"));
    let d = dir.path().to_path_buf();
    let rep = within_20s(move || verify_adjito(&d));
    assert!(!rep.passed());
    assert!(matches!(
        rep.levels[3].outcome,
        LevelOutcome::BadFile(TableError::NotRegular { .. })
    ));
}

#[cfg(unix)]
#[test]
fn a_directory_or_dev_null_in_place_of_a_table_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 2);
    let p = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 2);
    std::fs::remove_file(&p).unwrap();
    std::fs::create_dir(&p).unwrap();
    let e = open(dir.path(), GameId::Adjito, LoopRule::Start, 2).unwrap_err();
    assert!(e.to_string().contains("directory"), "{e}");
    assert!(!e.to_string().contains("No such device"), "{e}");
    std::fs::remove_dir(&p).unwrap();
    std::os::unix::fs::symlink("/dev/null", &p).unwrap();
    let e = open(dir.path(), GameId::Adjito, LoopRule::Start, 2).unwrap_err();
    assert!(e.to_string().contains("device"), "{e}");
    assert!(!e.to_string().contains("No such device"), "{e}");
}

/// A 64-byte header with a valid header checksum and the given level and count.
fn crafted_header(game: GameId, level: u16, count: u64) -> Vec<u8> {
    let h = Header {
        game,
        rules: RuleSet::default_for(game),
        rule: LoopRule::Start,
        level,
        count,
        exceptions: 0,
        tool: "crafted".into(),
        payload_crc: crc32fast::hash(&[]),
    };
    h.encode().to_vec()
}

#[test]
fn a_crafted_header_with_an_impossible_level_is_refused_not_a_panic() {
    // Issue 8, D5: level 200 with a valid header CRC, named as level 200.
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 2);
    for (level, count) in [(200u16, 0u64), (200, 1), (49, 1), (127, 5), (65535, 0)] {
        let p = level_path(
            dir.path(),
            RuleSet::AdjitoDefault,
            LoopRule::Start,
            level as u32,
        );
        std::fs::write(&p, crafted_header(GameId::Adjito, level, count)).unwrap();
        let e = open(dir.path(), GameId::Adjito, LoopRule::Start, level as u32).unwrap_err();
        assert!(e.to_string().contains("level"), "{e}");
        let rep = verify_adjito(dir.path());
        assert!(!rep.passed());
        std::fs::remove_file(&p).unwrap();
    }
    // A header whose count disagrees with its level is refused by the reader itself.
    let b = crafted_header(GameId::AdjiBoto, 5, 7);
    assert!(Header::decode(Path::new("x"), &b).is_err());
    let b = crafted_header(GameId::AdjiBoto, 101, 0);
    assert!(Header::decode(Path::new("x"), &b).is_err());
}

#[test]
fn index_sizes_are_checked_for_levels_from_files() {
    use adji::index::try_level_size;
    assert_eq!(try_level_size(5, 12), Some(4368));
    assert_eq!(try_level_size(200, 12), None);
    assert_eq!(try_level_size(5, 0), None);
    assert_eq!(try_level_size(5, 13), None);
}

#[test]
fn a_build_removes_stale_temporary_files_of_our_naming() {
    // Issue 8, D7: a kill during a write leaves a temporary file; the next
    // build removes ours (old `.adjt-` and new `.adji-` names) and nothing else.
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 2);
    let ours = [".adjt-AbC123.tmp", ".adji-XyZ789.tmp"];
    for n in ours {
        std::fs::write(dir.path().join(n), vec![0u8; 4096]).unwrap();
    }
    std::fs::write(dir.path().join("notes.tmp"), b"keep").unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 3);
    for n in ours {
        assert!(!dir.path().join(n).exists(), "{n} left behind");
    }
    assert!(dir.path().join("notes.tmp").exists());
}

/// Holds `dir`'s lock file `name` as a running build would: shared for the
/// directory's lock, exclusive for a file set's.
fn hold_lock(dir: &Path, name: &str, shared: bool) -> std::fs::File {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(name))
        .unwrap();
    if shared {
        f.lock_shared().unwrap();
    } else {
        f.lock().unwrap();
    }
    f
}

#[test]
fn a_build_leaves_the_temporary_files_of_a_running_build_of_other_files() {
    // Issue 24: two builds in one directory (two games, rule sets or loop
    // rules) deleted each other's temporary files, so the first one's
    // rename failed. A must-reach build is running (it holds the
    // directory's lock shared and its files' lock) and writing its level
    // 23; a default build starting in the same directory must leave that
    // file, and the random-named one of an unknown writer, alone, and
    // still clean its own stale ones.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let _dir_lock = hold_lock(d, ".adji-build.lock", true);
    let _set_lock = hold_lock(d, ".adji-build-adjito-must-reach-start.lock", false);
    let theirs = [
        ".adji-adjito-must-reach-start-023.adjt.AbC123.tmp",
        ".adji-adjiboto-start-020.adjt.AbC123.tmp",
        ".adji-XyZ789.tmp",
    ];
    let mine = ".adji-adjito-start-003.adjt.QrS456.tmp";
    for n in theirs.iter().chain([&mine]) {
        std::fs::write(d.join(n), vec![0u8; 4096]).unwrap();
    }
    build::<Adjito>(d, LoopRule::Start, 3);
    for n in theirs {
        assert!(d.join(n).exists(), "{n}, another build's, was removed");
    }
    assert!(
        !d.join(mine).exists(),
        "{mine}, our own stale one, was left"
    );
}

#[test]
fn a_second_build_of_the_same_files_is_refused_naming_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let held = hold_lock(d, ".adji-build-adjito-start.lock", false);
    let Err(e) = build_tables::<Adjito>(d, LoopRule::Start, 2, &NoProgress, |_| {}) else {
        panic!("a second build of the same files was not refused");
    };
    let msg = e.to_string();
    assert!(matches!(e, TableError::Locked { .. }), "{msg}");
    assert!(msg.contains(".adji-build-adjito-start.lock"), "{msg}");
    assert!(
        msg.contains("another command writing the same files"),
        "{msg}"
    );
    assert!(!d.join("adjito-start-000.adjt").exists());
    // Another file set (the even loop rule) builds meanwhile; once the
    // lock is released, the refused build runs and resumes nothing amiss.
    build::<Adjito>(d, LoopRule::Even, 2);
    drop(held);
    build::<Adjito>(d, LoopRule::Start, 2);
    // The locks are released when a build ends: it can run again.
    build::<Adjito>(d, LoopRule::Start, 3);
    verify_adjito(d);
}

#[test]
fn a_level_too_large_for_the_builder_is_refused_not_a_panic() {
    // House item 5: Adji-Boto level 90 has 2.2e12 positions, beyond 40-bit
    // ranks; the plan names the first level too large (86: 1.13e12).
    let r = adji::tables::retrograde::plan::<AdjiBoto>(90);
    assert!(
        matches!(r, Err(TableError::TooLarge { level: 86, .. })),
        "{r:?}"
    );
    let empty = TableSet::empty(RuleSet::AdjiBotoDefault, LoopRule::Start);
    let r = adji::tables::retrograde::build_level::<AdjiBoto>(90, &empty, &NoProgress);
    assert!(matches!(r, Err(TableError::TooLarge { level: 90, .. })));
    assert!(adji::tables::retrograde::plan::<AdjiBoto>(60).is_ok());
}

#[test]
fn files_of_the_old_two_byte_format_are_refused_with_a_rebuild_message() {
    // Issue 9: version 2 (lo/hi interleaved) must not be misread as version 3.
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 3);
    let p = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 3);
    let mut b = std::fs::read(&p).unwrap();
    b[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    let e = open(dir.path(), GameId::Adjito, LoopRule::Start, 3).unwrap_err();
    assert!(matches!(e, TableError::Version { found: 2, .. }), "{e:?}");
    assert!(e.to_string().contains("rebuild"), "{e}");
    // A build replaces it, saying why.
    let mut why = Vec::new();
    build_tables::<Adjito>(dir.path(), LoopRule::Start, 3, &NoProgress, |e| {
        why.extend(e.replaced.clone())
    })
    .unwrap();
    assert_eq!(why.len(), 1);
    assert!(why[0].contains("version 2"), "{why:?}");
}

#[test]
fn one_byte_per_position_and_loop_sensitive_bounds_kept() {
    // Issue 9: at most 1.1 bytes per position; Adjito's loop-sensitive
    // positions (levels 2..6) keep lo < hi exactly.
    let dir = tempfile::tempdir().unwrap();
    let set = build::<Adjito>(dir.path(), LoopRule::Start, 9);
    let (mut sensitive, mut total, mut positions) = (0, 0, 0);
    for n in 0..=9 {
        let t = set.level(n).unwrap();
        let bytes = std::fs::metadata(level_path(
            dir.path(),
            RuleSet::AdjitoDefault,
            LoopRule::Start,
            n,
        ))
        .unwrap()
        .len();
        assert_eq!(bytes, (HEADER_LEN + t.len()) as u64 + 8 * t.exceptions());
        (total, positions) = (total + bytes, positions + t.len() as u64);
        if n >= 7 {
            assert!(
                bytes as f64 <= 1.1 * t.len() as f64,
                "level {n}: {bytes} bytes"
            );
        }
        let (lo, hi) = t.planes().unwrap();
        for i in 0..t.len() {
            let b = t.bounds(i).unwrap();
            assert_eq!(
                (b.lo, b.hi),
                (
                    adji::value::decode_bound(lo[i] as i8),
                    adji::value::decode_bound(hi[i] as i8)
                )
            );
            sensitive += b.loop_sensitive() as u64;
        }
        assert_eq!(
            t.exceptions(),
            (0..t.len()).filter(|&i| lo[i] != hi[i]).count() as u64
        );
    }
    assert_eq!(
        sensitive, 832,
        "832 loop-sensitive Adjito positions, all at levels 2..6"
    );
    assert!(
        total as f64 <= 1.1 * positions as f64,
        "{total} bytes for {positions}"
    );
}

#[test]
fn a_bad_exception_list_is_corrupt_not_a_panic() {
    let (dir, p, good) = adjito_level_file(5, 5);
    let t = open(dir.path(), GameId::Adjito, LoopRule::Start, 5).unwrap();
    let n = t.len();
    assert!(t.exceptions() >= 2);
    drop(t);
    // Rewrites the payload checksum so that only the list is wrong.
    let fix = |b: &mut Vec<u8>| {
        let crc = crc32fast::hash(&b[HEADER_LEN..]);
        b[48..52].copy_from_slice(&crc.to_le_bytes());
        let hc = crc32fast::hash(&b[0..60]);
        b[60..64].copy_from_slice(&hc.to_le_bytes());
    };
    let first = HEADER_LEN + n;
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<Edit> = vec![
        // A marked byte with no record: unmark the record's entry elsewhere.
        Box::new(|b| b[HEADER_LEN] = 0x80),
        // Records out of order.
        Box::new(move |b| {
            let (x, y) = (
                b[first..first + 8].to_vec(),
                b[first + 8..first + 16].to_vec(),
            );
            b[first..first + 8].copy_from_slice(&y);
            b[first + 8..first + 16].copy_from_slice(&x);
        }),
        // A record whose lo > hi (an impossible value, below).
        Box::new(move |b| (b[first + 4], b[first + 5]) = (5, 1)),
        // A record past the end.
        Box::new(move |b| b[first..first + 4].copy_from_slice(&u32::MAX.to_le_bytes())),
    ];
    for (i, f) in cases.iter().enumerate() {
        let mut b = good.clone();
        f(&mut b);
        fix(&mut b);
        std::fs::write(&p, &b).unwrap();
        let e = open(dir.path(), GameId::Adjito, LoopRule::Start, 5).unwrap_err();
        let typed = if i == 2 {
            matches!(e, TableError::ImpossibleValue { .. })
        } else {
            matches!(e, TableError::Corrupted { .. })
        };
        assert!(typed, "case {i}: {e:?}");
    }
}

/// Issue 27: a level over the memory budget is built out of core (the
/// files then match the in-memory build's); a budget that not even the
/// smallest shard fits is refused before anything is built.
#[test]
fn a_build_over_its_memory_budget_is_refused_before_anything_is_built() {
    use adji::tables::retrograde::{
        build_tables_within, check_memory, plan, plan_peak, plan_within, OVERHEAD_BYTES,
    };
    let dir = tempfile::tempdir().unwrap();
    let p = plan::<Adjito>(9).unwrap();
    let need = plan_peak(&p);
    let r = build_tables_within::<Adjito>(
        dir.path(),
        LoopRule::Start,
        9,
        OVERHEAD_BYTES,
        &NoProgress,
        |_| {},
    );
    assert!(
        matches!(r, Err(TableError::OverBudget { level: 1, .. })),
        "{:?}",
        r.err()
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
    assert!(check_memory(&p, need).is_ok());
    // Just below the one-phase peak, level 9 is staged (the lower levels,
    // then the cells); below its staged peak too, out of core.
    let within = plan_within::<Adjito>(9, need - 1, None).unwrap();
    assert!(within[9].staged && within[9].shards == 1, "{within:?}");
    assert!(
        within[9].peak_bytes < need && !within[8].staged,
        "{within:?}"
    );
    let below = within[9].peak_bytes - 1;
    let within = plan_within::<Adjito>(9, below, None).unwrap();
    assert!(within[9].shards > 1 && within[8].shards == 1, "{within:?}");
    let mut out_of_core = Vec::new();
    build_tables_within::<Adjito>(dir.path(), LoopRule::Start, 9, below, &NoProgress, |e| {
        out_of_core.extend(e.ooc.as_ref().map(|r| r.level))
    })
    .unwrap();
    assert_eq!(out_of_core, [9]);
    let one = tempfile::tempdir().unwrap();
    build::<Adjito>(one.path(), LoopRule::Start, 9);
    let merged = tempfile::tempdir().unwrap();
    let rules = RuleSet::AdjitoDefault;
    adji::tables::convert::merge_level(
        &[dir.path().to_path_buf()],
        merged.path(),
        rules,
        LoopRule::Start,
        9,
    )
    .unwrap();
    let read = |d: &Path| std::fs::read(level_path(d, rules, LoopRule::Start, 9)).unwrap();
    assert!(read(merged.path()) == read(one.path()));
    // Issue 9: the largest levels asked for fit in 24 GiB.
    for peak in [
        plan_peak(&plan::<AdjiBoto>(40).unwrap()),
        plan_peak(&plan::<Adjito>(28).unwrap()),
    ] {
        assert!(peak <= 24 << 30, "{peak} bytes");
    }
}

/// `OpenCheck::Header` (the command line's `--trust-tables`) maps a file
/// without reading its payload: a corrupted value byte is then not caught
/// at open, and one marked loop-sensitive without its exception record
/// reads as the widest bounds instead of panicking. `OpenCheck::Full`
/// refuses both files.
#[test]
fn header_only_open_skips_the_payload_and_never_panics() {
    use adji::tables::{OpenCheck, Table};
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 8);
    let path = adji::tables::level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, 8);
    let open_with =
        |check| Table::open_checked(&path, RuleSet::AdjitoDefault, LoopRule::Start, 8, 12, check);
    let full = open_with(OpenCheck::Full).unwrap();
    let (before, next) = (full.bounds(100), full.bounds(101));
    drop(full);
    let mut b = std::fs::read(&path).unwrap();
    b[64 + 100] = adji::tables::format::EXCEPTION as u8;
    std::fs::write(&path, &b).unwrap();
    let err = open_with(OpenCheck::Full).unwrap_err().to_string();
    assert!(err.contains("payload checksum mismatch"), "{err}");
    let t = open_with(OpenCheck::Header).unwrap();
    // A marked byte without its record is damage, never a value (issue
    // 49: it read as the widest bounds, whose value is the loop rule's
    // score); the damage names the file and the entry.
    assert!(before.is_some());
    assert_eq!(t.bounds(100), None);
    assert_eq!(t.value(100, 3), None);
    let e = t.damage().unwrap().to_string();
    assert!(
        e.contains("entry 100") && e.contains(&*path.to_string_lossy()),
        "{e}"
    );
    assert_eq!(t.bounds(101), next);
    drop(t);
    // A value byte no entry of level 8 can hold (100), read from a
    // trusted file: damage too, never the value 100.
    b[64 + 100] = 100;
    std::fs::write(&path, &b).unwrap();
    let t = open_with(OpenCheck::Header).unwrap();
    assert_eq!(t.value(100, 0), None);
    let e = t.damage().unwrap().to_string();
    assert!(e.contains("rank 100") && e.contains("outside ±8"), "{e}");
    assert_eq!(t.bounds(101), next);
}

// ---- Issue 23 (items 1, 2, 3, 6, 21): each test below failed before its fix.

/// Item 3: a value byte outside ±(seeds on the board), with both checksums
/// recomputed, opened as exact −127 (the byte 127 is +∞, never a value).
#[test]
fn an_impossible_value_byte_is_refused_on_open_naming_the_rank() {
    let (dir, p, good) = adjito_level_file(4, 3);
    let t = open(dir.path(), GameId::Adjito, LoopRule::Start, 3).unwrap();
    let plain = (0..t.len())
        .find(|&i| !t.bounds(i).unwrap().loop_sensitive())
        .unwrap();
    drop(t);
    for byte in [127u8, 4, 0xFC, 100] {
        std::fs::write(&p, &good).unwrap();
        forge(&p, &[(plain, byte)]);
        let e = open(dir.path(), GameId::Adjito, LoopRule::Start, 3).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, TableError::ImpossibleValue { rank, .. } if rank == plain as u64),
            "byte {byte}: {e:?}"
        );
        assert!(msg.contains(&format!("rank {plain}")), "byte {byte}: {msg}");
        assert!(
            msg.contains(&format!("{}", byte as i8)),
            "byte {byte}: {msg}"
        );
        assert!(msg.contains("adjito-start-003.adjt"), "{msg}");
    }
    // An exception record whose bounds are impossible or reversed.
    std::fs::write(&p, &good).unwrap();
    let t = open(dir.path(), GameId::Adjito, LoopRule::Start, 3).unwrap();
    let (n, x) = (t.len(), t.exceptions() as usize);
    drop(t);
    assert!(x > 0);
    let rec = n + 8 * (x - 1);
    let rank = u32::from_le_bytes(
        good[HEADER_LEN + rec..HEADER_LEN + rec + 4]
            .try_into()
            .unwrap(),
    );
    for (lo, hi) in [(-4i8, 1i8), (-3, 4), (127, 127), (-128, -128), (2, -2)] {
        std::fs::write(&p, &good).unwrap();
        forge(&p, &[(rec + 4, lo as u8), (rec + 5, hi as u8)]);
        let e = open(dir.path(), GameId::Adjito, LoopRule::Start, 3).unwrap_err();
        assert!(
            matches!(&e, TableError::ImpossibleValue { rank: r, .. } if *r == rank as u64),
            "({lo}, {hi}): {e:?}"
        );
    }
    std::fs::write(&p, &good).unwrap();
}

/// Item 21: one limit, the library's, for the builder's largest level.
#[test]
fn the_builders_largest_level_is_the_librarys_one_limit() {
    use adji::tables::retrograde::{check_size, max_build_level, plan};
    assert_eq!(max_build_level::<Adjito>(), 48);
    assert_eq!(max_build_level::<AdjiBoto>(), 85);
    fn limit<G: Game>() {
        let max = max_build_level::<G>();
        assert!(check_size::<G>(max).is_ok());
        assert!(plan::<G>(max).is_ok());
        let e = check_size::<G>(max + 1).unwrap_err();
        assert!(
            matches!(e, TableError::TooLarge { level, max: m, .. } if level == max + 1 && m == max)
        );
        assert!(e.to_string().contains("40 bits"), "{e}");
        if max < G::TOTAL {
            assert!(
                matches!(plan::<G>(G::TOTAL), Err(TableError::TooLarge { level, .. }) if level == max + 1)
            );
        }
    }
    limit::<Adjito>();
    limit::<AdjiBoto>();
}

/// Item 6: a file named for a level above the game's seeds (4294967295)
/// made verify walk every level up to it, reporting each missing.
#[test]
fn a_stray_file_above_the_games_seeds_is_one_error_not_a_walk() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 3);
    for stray in ["adjito-start-4294967295.adjt", "adjito-start-49.adjt"] {
        let p = dir.path().join(stray);
        std::fs::write(&p, b"").unwrap();
        let d = dir.path().to_path_buf();
        let rep = within_20s(move || verify_adjito(&d));
        assert!(!rep.passed(), "{stray}");
        assert_eq!(rep.levels.len(), 4, "{stray}: walked to it");
        assert_eq!(rep.strays.len(), 1, "{stray}");
        assert!(rep.strays[0].to_string().contains(stray), "{stray}");
        assert!(rep.levels.iter().all(|l| l.ok()), "{stray}");
        std::fs::remove_file(&p).unwrap();
    }
}
