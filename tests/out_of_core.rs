//! Issue 27: `tables build --memory` smaller than a level builds it out of
//! core (in shards, one after another) instead of refusing it, and the
//! shards merge into the in-memory build's files byte for byte.

use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::tables::level_path;
use adji::tables::retrograde::build_tables;
use adji::value::LoopRule;
use adji::Adjito;
use assert_cmd::Command;

fn adji() -> Command {
    Command::cargo_bin("adji").unwrap()
}

/// `tables build --game adjito --max-seeds 12 --memory MEMORY --threads 1`
/// into a new directory, beside the same levels built in memory by the
/// library: (the command's directory, its standard output, the levels).
fn build_12_within(memory: &str) -> (tempfile::TempDir, String, tempfile::TempDir) {
    let one = tempfile::tempdir().unwrap();
    build_tables::<Adjito>(one.path(), LoopRule::Start, 12, &NoProgress, |_| {}).unwrap();
    let d = tempfile::tempdir().unwrap();
    let out = adji()
        .args(["tables", "build", "--game", "adjito", "--max-seeds", "12"])
        .args(["--memory", memory, "--threads", "1", "--dir"])
        .arg(d.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (d, stdout, one)
}

#[test]
fn a_build_over_its_memory_is_built_out_of_core_and_merges_to_the_in_memory_files() {
    let (rules, rule, max) = (RuleSet::AdjitoDefault, LoopRule::Start, 12);
    // 100 MiB: level 12 (1.35e6 positions) needs 101.9 MiB in memory (2
    // bytes a position, 2 MiB of frontiers, the lower levels and the fixed
    // 96 MiB), and 100.6 MiB staged (the larger of its forward pass, with
    // the lower levels, and the rest, without), so it is split in 2
    // shards; level 11 (99.97 MiB) fits.
    let (d, stdout, one) = build_12_within("100M");
    let row = |n: &str| {
        let l = stdout.lines().find(|l| l.starts_with(&format!("| {n} | ")));
        l.unwrap_or_default().to_string()
    };
    assert!(row("12").contains("| 2 out of core |"), "{stdout}");
    assert!(row("11").contains("| in memory |"), "{stdout}");
    assert!(stdout.contains("built out of core: 2 shards"), "{stdout}");
    // The plan's writeback note: printed exactly when the kernel's dirty
    // pages expire within the hour (Linux's default is 30 s; level 12's
    // shards are far below any background threshold).
    if let Ok(c) = std::fs::read_to_string("/proc/sys/vm/dirty_expire_centisecs") {
        let expires_soon = c.trim().parse::<u64>().unwrap() < 360_000;
        let note = stdout.contains("Note: out of core, a shard's cells live in a mapped");
        assert_eq!(note, expires_soon, "{stdout}");
        assert!(!note || stdout.contains("a shard at level 12"), "{stdout}");
    }
    let merged = tempfile::tempdir().unwrap();
    adji::tables::convert::merge_level(&[d.path().to_path_buf()], merged.path(), rules, rule, max)
        .unwrap();
    for n in 0..=max {
        let want = std::fs::read(level_path(one.path(), rules, rule, n)).unwrap();
        let dir = if n == max { merged.path() } else { d.path() };
        let got = std::fs::read(level_path(dir, rules, rule, n)).unwrap();
        assert!(got == want, "level {n}");
    }
    // A rerun keeps every level, the sharded one too.
    let out = adji()
        .args(["tables", "build", "--game", "adjito", "--max-seeds", "12"])
        .args(["--memory", "100M", "--dir"])
        .arg(d.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(stdout.matches("kept (checksum OK)").count(), 13, "{stdout}");
}

/// Between the two, level 12 is built in memory in two phases (the
/// lower levels, then the cells), and its file is the one-phase build's.
#[test]
fn a_build_over_its_memory_but_within_its_phases_is_staged() {
    let (rules, rule, max) = (RuleSet::AdjitoDefault, LoopRule::Start, 12);
    let (d, stdout, one) = build_12_within("101M");
    let row = stdout.lines().find(|l| l.starts_with("| 12 | ")).unwrap();
    assert!(row.contains("| in memory, staged |"), "{stdout}");
    let file = |dir: &std::path::Path| std::fs::read(level_path(dir, rules, rule, max)).unwrap();
    assert!(file(d.path()) == file(one.path()));
}

#[test]
fn a_budget_below_one_shard_is_refused_naming_the_level() {
    let d = tempfile::tempdir().unwrap();
    let out = adji()
        .args(["tables", "build", "--game", "adjito", "--max-seeds", "12"])
        .args(["--memory", "90M", "--dir"])
        .arg(d.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("--memory allows"), "{stderr}");
    assert!(stderr.contains("shard of level 1"), "{stderr}");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

/// Issue 50: the plan projects each level from the build times measured
/// in its directory (`.adji-build-times.json`, written as levels are built),
/// and from the floor where nothing was measured there.
#[test]
fn the_plan_projects_from_the_levels_measured_in_its_directory() {
    let d = tempfile::tempdir().unwrap();
    let run = |max: &str| {
        let out = adji()
            .args(["tables", "build", "--game", "adjito", "--max-seeds", max])
            .args(["--threads", "1", "--dir"])
            .arg(d.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let plan_row = |text: &str, n: u32| {
        let rows = text.lines().filter(|l| l.starts_with(&format!("| {n} | ")));
        rows.take(1).collect::<String>()
    };
    let first = run("8");
    assert!(plan_row(&first, 8).ends_with(" s (floor) |"), "{first}");
    let json = std::fs::read_to_string(d.path().join(".adji-build-times.json")).unwrap();
    assert!(
        json.contains("\"adjito-start\"") && json.contains("\"8\""),
        "{json}"
    );
    let second = run("9");
    assert!(
        plan_row(&second, 9).ends_with(" s (level 8 here) |"),
        "{second}"
    );
    assert!(
        plan_row(&second, 5).ends_with(" s (level 5 here) |"),
        "{second}"
    );
}
