//! Distributed runs under `mpirun` (feature `mpi`; needs Open MPI's
//! `mpirun` on the PATH): table builds and opening analyses over 1, 2 and 3
//! processes on this machine write the same files as one process, and a run
//! whose rank is killed resumes to the same files.
//!
//! Run with `cargo test --release --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use adji::rules::RuleSet;
use adji::tables::{level_path, shard};
use adji::value::LoopRule;

const ADJI: &str = env!("CARGO_BIN_EXE_adji");

/// `adji args` in `cwd`, alone (no MPI launcher).
fn alone(cwd: &Path, args: &[&str]) -> Output {
    let o = Command::new(ADJI)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(o.status.success(), "adji {args:?}: {o:?}");
    o
}

/// The `mpirun` command for `p` processes of `adji args` in `cwd`.
fn mpirun(p: usize, cwd: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args([
        "--oversubscribe",
        "--allow-run-as-root",
        "-np",
        &p.to_string(),
        ADJI,
    ])
    .args(args)
    .current_dir(cwd);
    c
}

/// `mpirun -np p adji args` in `cwd`, which must succeed.
fn distributed(p: usize, cwd: &Path, args: &[&str]) -> Output {
    let o = mpirun(p, cwd, args).output().unwrap();
    assert!(o.status.success(), "mpirun -np {p} adji {args:?}: {o:?}");
    o
}

/// The files of `dir` ending in `ext`, by name, with their bytes.
fn files(dir: &Path, ext: &str) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// The level files of levels `0..=max` that `dirs` hold: a level's single
/// file, or the merge of its shards (spread over `dirs`), by name.
fn merged(dirs: &[PathBuf], rules: RuleSet, rule: LoopRule, max: u32) -> Vec<(String, Vec<u8>)> {
    let out = tempfile::tempdir().unwrap();
    for n in 0..=max {
        let single = dirs
            .iter()
            .map(|d| level_path(d, rules, rule, n))
            .find(|p| p.exists());
        match single {
            Some(p) => {
                std::fs::copy(&p, out.path().join(p.file_name().unwrap())).unwrap();
            }
            None => {
                adji::tables::convert::merge_level(dirs, out.path(), rules, rule, n).unwrap();
            }
        }
    }
    files(out.path(), ".adjt")
}

/// The rule set and loop rule of `game` (default rules) and `rule`.
fn rules_of(game: &str, rule: &str) -> (RuleSet, LoopRule) {
    let rules = match game {
        "adjito" => RuleSet::AdjitoDefault,
        _ => RuleSet::AdjiBotoDefault,
    };
    let rule = match rule {
        "start" => LoopRule::Start,
        _ => LoopRule::Even,
    };
    (rules, rule)
}

fn build_args<'a>(game: &'a str, max: &'a str, rule: &'a str) -> Vec<&'a str> {
    vec![
        "tables",
        "build",
        "--game",
        game,
        "--max-seeds",
        max,
        "--loop",
        rule,
        "--dir",
        "t",
        "--threads",
        "1",
    ]
}

#[test]
fn distributed_table_builds_are_byte_identical_for_1_2_and_3_processes() {
    for (game, max) in [("adjito", "8"), ("adjiboto", "10")] {
        for rule in ["start", "even"] {
            let args = build_args(game, max, rule);
            let one = tempfile::tempdir().unwrap();
            alone(one.path(), &args);
            let want = files(&one.path().join("t"), ".adjt");
            let top: u32 = max.parse().unwrap();
            assert_eq!(want.len(), top as usize + 1);
            let (rules, lr) = rules_of(game, rule);
            for p in 1..=3 {
                let d = tempfile::tempdir().unwrap();
                let o = distributed(p, d.path(), &args);
                let text = String::from_utf8_lossy(&o.stdout);
                assert!(
                    text.contains(&format!("Distributed build over {p} processes")),
                    "{text}"
                );
                let got = merged(&[d.path().join("t")], rules, lr, top);
                assert!(got == want, "{game} --loop {rule}, P = {p}: files differ");
                // Per level, one row per rank with its bytes sent.
                let rows = text
                    .lines()
                    .filter(|l| l.starts_with(&format!("| {max} |")) && l.contains("| built |"));
                assert_eq!(rows.count(), p, "{text}");
            }
        }
    }
}

/// The ids of the processes whose command line holds `needle` and whose
/// environment says they are MPI rank `rank`.
fn ranks_with(needle: &str, rank: usize) -> Vec<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let read = |f: &str| std::fs::read(format!("/proc/{pid}/{f}")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&read("cmdline")).replace('\0', " ");
            let env = read("environ");
            cmd.contains(needle)
                && cmd.starts_with(ADJI)
                && env.split(|&b| b == 0).any(|v| v == want.as_bytes())
        })
        .collect()
}

/// Waits (at most a minute) until `ready()`, then kills rank `rank` of
/// the run (found by `needle` in its command line) and waits for `child`
/// (`mpirun`) to end, which it must do with a failure.
fn kill_rank_when(child: &mut Child, needle: &str, rank: usize, ready: impl Fn() -> bool) {
    let t = Instant::now();
    while !ready() {
        assert!(t.elapsed() < Duration::from_secs(60), "never ready");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pids = ranks_with(needle, rank);
    assert_eq!(pids.len(), 1, "rank {rank} of {needle}: {pids:?}");
    let k = Command::new("kill")
        .args(["-KILL", &pids[0].to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "mpirun must report the killed rank");
}

/// A run to be killed: `adji args` done alone in `one`, and `mpirun -np p
/// adji args` started in `dir` with `args[at]` (a relative output path)
/// replaced by the absolute `path`, by which its processes are found.
struct Killable {
    one: tempfile::TempDir,
    dir: tempfile::TempDir,
    path: PathBuf,
    needle: String,
    child: Child,
    args: Vec<String>,
}

fn killable(p: usize, args: &[&str], at: usize) -> Killable {
    let one = tempfile::tempdir().unwrap();
    alone(one.path(), args);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(args[at]);
    let needle = path.to_string_lossy().into_owned();
    let mut abs: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    abs[at] = needle.clone();
    let refs: Vec<&str> = abs.iter().map(String::as_str).collect();
    let child = mpirun(p, dir.path(), &refs)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Killable {
        one,
        dir,
        path,
        needle,
        child,
        args: abs,
    }
}

impl Killable {
    /// The same command again (with `extra`), which must succeed.
    fn again(&self, p: usize, extra: &[&str]) -> Output {
        let mut a: Vec<&str> = self.args.iter().map(String::as_str).collect();
        a.extend_from_slice(extra);
        distributed(p, self.dir.path(), &a)
    }
}

/// `--dir r/rank-{rank}`: each rank writes its shard of the top level
/// into its own directory (each holding a copy of the lower levels, read
/// whole: no lookups go to other ranks), and the shards of all directories
/// merge into the one-process file.
#[test]
fn ranks_with_their_own_directories_write_shards_that_merge_to_one_process() {
    let args = build_args("adjiboto", "10", "even");
    let one = tempfile::tempdir().unwrap();
    alone(one.path(), &args);
    let (rules, rule) = rules_of("adjiboto", "even");
    let d = tempfile::tempdir().unwrap();
    let dirs: Vec<PathBuf> = (0..3)
        .map(|r| d.path().join(format!("r/rank-{r}")))
        .collect();
    for dir in &dirs {
        std::fs::create_dir_all(dir).unwrap();
        for n in 0..10 {
            let f = level_path(&one.path().join("t"), rules, rule, n);
            std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
        }
    }
    let mut a = args.clone();
    a[9] = "r/rank-{rank}";
    let o = distributed(3, d.path(), &a);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.matches("kept (checksum OK)").count(), 10, "{text}");
    for (r, dir) in dirs.iter().enumerate() {
        assert!(shard::shard_path(dir, rules, rule, 10, r as u32, 3).exists());
    }
    assert!(!d.path().join("r/rank-{rank}").exists());
    assert!(merged(&dirs, rules, rule, 10) == files(&one.path().join("t"), ".adjt"));
    let row = text
        .lines()
        .find(|l| l.starts_with("| 10 |") && l.contains("| built |"))
        .expect("level 10");
    let cols: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cols[14], "0", "lookup bytes with whole lower levels: {row}");
}

#[test]
fn a_table_build_with_a_killed_rank_resumes_to_identical_files() {
    let mut k = killable(2, &build_args("adjito", "13", "start"), 9);
    let level = |n: u32| k.path.join(format!("adjito-start-{n:03}.shards.json"));
    kill_rank_when(&mut k.child, &k.needle, 1, || level(11).exists());
    assert!(
        !level(13).exists(),
        "the kill came too late to test a resume"
    );
    let o = k.again(2, &[]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("| 0 | | kept (checksum OK)"), "{text}");
    let got = merged(
        &[k.path.clone()],
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        13,
    );
    assert!(got == files(&k.one.path().join("t"), ".adjt"));
    assert!(
        files(&k.path, ".tmp").is_empty(),
        "stale temporary files left"
    );
}

fn openings_args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec![
        "openings",
        "--game",
        "adjito",
        "--plies",
        "3",
        "--no-tables",
        "--no-timings",
        "--threads",
        "1",
        "--hash",
        "1",
        "--out",
        "o",
    ];
    v.extend_from_slice(extra);
    v
}

const OUTPUTS: [&str; 4] = ["lines.csv", "tree.json", "tree.svg", "summary.md"];

fn outputs(dir: &Path) -> Vec<Vec<u8>> {
    OUTPUTS
        .iter()
        .map(|f| std::fs::read(dir.join("o").join(f)).unwrap())
        .collect()
}

#[test]
fn distributed_openings_write_the_files_of_one_process_for_1_2_and_3_processes() {
    let args = openings_args(&["--depth", "4"]);
    let one = tempfile::tempdir().unwrap();
    alone(one.path(), &args);
    let want = outputs(one.path());
    for p in 1..=3 {
        let d = tempfile::tempdir().unwrap();
        let o = distributed(p, d.path(), &args);
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(text.matches("unique positions").count(), 1, "{text}");
        assert!(outputs(d.path()) == want, "P = {p}: outputs differ");
        let ranks: Vec<PathBuf> = std::fs::read_dir(d.path().join("o"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().contains("checkpoint.rank-"))
            .collect();
        assert_eq!(ranks.len(), if p == 1 { 1 } else { p - 1 }, "{ranks:?}");
    }
}

#[test]
fn distributed_openings_with_a_killed_rank_resume_to_identical_files() {
    let mut k = killable(3, &openings_args(&["--depth", "7"]), 12);
    let out = k.path.clone();
    let size = |r: usize| {
        std::fs::metadata(out.join(format!("checkpoint.rank-{r}.bin"))).map_or(0, |m| m.len())
    };
    // Killed once rank 2 has recorded a few results.
    kill_rank_when(&mut k.child, &k.needle, 2, || size(2) > 400);
    assert!(!out.join("summary.md").exists());
    let o = k.again(3, &["--resume"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("unique positions"))
        .unwrap();
    assert!(!line.contains("(0 analysed now)"), "{line}");
    let all: usize = line.split(' ').nth(2).unwrap().parse().unwrap();
    let now: usize = line
        .split('(')
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(now < all, "the resumed run redid everything: {line}");
    let got = normalised(k.dir.path(), &k.needle);
    assert!(got == outputs(k.one.path()), "outputs differ");
}

/// A resumed run's outputs with its summary's command line as the one
/// process's (`--out o`, no `--resume`): the killed run used an absolute
/// `--out` so that its processes could be found.
fn normalised(dir: &Path, out: &str) -> Vec<Vec<u8>> {
    let mut v = outputs(dir);
    let s = String::from_utf8(v[3].clone()).unwrap();
    let s = s
        .replace(&format!("--out {out}"), "--out o")
        .replace(" --resume", "");
    v[3] = s.into_bytes();
    v
}

/// A distributed build prints its plan and refuses, on every rank and
/// before anything is allocated or written, a level over `--memory`.
#[test]
fn a_distributed_build_over_its_memory_budget_is_refused_before_building() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = build_args("adjito", "20", "start");
    args.extend(["--memory", "200M"]);
    let o = mpirun(2, dir.path(), &args).output().unwrap();
    assert!(!o.status.success(), "{o:?}");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(stdout.contains("Plan:"), "{stdout}");
    assert!(stderr.contains("--memory"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Every rank refuses alike, so rank 0 alone reports it, without MPI's
    // abort.
    assert_eq!(stderr.matches("--memory allows").count(), 1, "{stderr}");
    assert!(!stderr.contains("MPI_ABORT"), "{stderr}");
    let t = dir.path().join("t");
    assert!(
        !t.exists() || files(&t, ".adjt").is_empty(),
        "nothing may be built"
    );
}

/// An error every rank meets (here a corrupt table every rank opens) is
/// written once, by rank 0, as one whole line: each rank used to print it,
/// and the ranks' lines interleaved (`error (rank error (rank 2): …`).
#[test]
fn an_error_every_rank_meets_is_written_once_as_one_line() {
    let dir = tempfile::tempdir().unwrap();
    alone(
        dir.path(),
        &[
            "tables",
            "build",
            "--game",
            "adjito",
            "--max-seeds",
            "5",
            "--dir",
            "t",
        ],
    );
    let f = dir.path().join("t/adjito-start-004.adjt");
    let mut b = std::fs::read(&f).unwrap();
    let last = b.len() - 1;
    b[last] ^= 0x01;
    std::fs::write(&f, b).unwrap();
    let args = [
        "openings",
        "--game",
        "adjito",
        "--position",
        "1,0,0,0,0,1/0,1,0,2,1,1 B 20-21",
        "--plies",
        "2",
        "--exact",
        "--tables",
        "t",
        "--out",
        "o",
    ];
    let o = mpirun(3, dir.path(), &args).output().unwrap();
    assert!(!o.status.success(), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].starts_with("error: ") && errors[0].contains("adjito-start-004.adjt"),
        "{stderr}"
    );
    assert!(!stderr.contains("MPI_ABORT"), "{stderr}");
}

#[test]
fn distributed_builds_and_openings_under_other_rule_sets_match_one_process() {
    for rules in ["must-reach", "slam-forbidden"] {
        let mut args = build_args("adjito", "8", "start");
        args.extend(["--rules", rules]);
        let one = tempfile::tempdir().unwrap();
        alone(one.path(), &args);
        let want = files(&one.path().join("t"), ".adjt");
        assert_eq!(want.len(), 9);
        let tag = format!("adjito-{rules}-");
        assert!(want.iter().all(|(n, _)| n.starts_with(&tag)), "{want:?}");
        for p in [2, 3] {
            let d = tempfile::tempdir().unwrap();
            let o = distributed(p, d.path(), &args);
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(text.contains(&format!("adjito ({rules})")), "{text}");
            let set = RuleSet::parse(adji::GameId::Adjito, rules).unwrap();
            let got = merged(&[d.path().join("t")], set, LoopRule::Start, 8);
            assert!(got == want, "--rules {rules}, P = {p}: files differ");
        }
    }
    let mut args = openings_args(&["--depth", "3"]);
    args[2] = "adjiboto";
    args[4] = "2";
    args.extend(["--rules", "valdez"]);
    let one = tempfile::tempdir().unwrap();
    alone(one.path(), &args);
    let want = outputs(one.path());
    let tree = String::from_utf8_lossy(&want[1]);
    assert!(tree.contains("\"rules\": \"valdez\""), "{tree}");
    for p in [2, 3] {
        let d = tempfile::tempdir().unwrap();
        distributed(p, d.path(), &args);
        assert!(
            outputs(d.path()) == want,
            "valdez openings, P = {p}: outputs differ"
        );
    }
}

/// `mpirun -x ADJI_MPI_CHUNK_BYTES=chunk -np p adji args` in `cwd`.
fn chunked(p: usize, chunk: &str, cwd: &Path, args: &[&str]) -> Output {
    let mut c = Command::new("mpirun");
    c.args([
        "--oversubscribe",
        "--allow-run-as-root",
        "-x",
        "ADJI_MPI_CHUNK_BYTES",
        "-np",
        &p.to_string(),
        ADJI,
    ])
    .args(args)
    .current_dir(cwd)
    .env("ADJI_MPI_CHUNK_BYTES", chunk);
    c.output().unwrap()
}

/// The builder's contract for a cluster: `mpirun -np 4`, each rank in its
/// own directory (`--dir r/rank-{rank}`, nothing shared: lower-level
/// lookups go to the rank holding the entry), messages cut into 7-byte
/// pieces (`ADJI_MPI_CHUNK_BYTES`: not a multiple of a 5- or 6-byte record,
/// nor of 8-byte lengths). Each directory holds its rank's shards only, and
/// `adji tables merge` of all of them writes the one-process files, for
/// both games, both loop rules and every rule set.
#[test]
fn four_ranks_on_their_own_directories_with_tiny_messages_merge_to_one_process() {
    let cases = [
        ("adjito", "default", "6"),
        ("adjito", "must-reach", "6"),
        ("adjito", "slam-forbidden", "6"),
        ("adjiboto", "default", "8"),
        ("adjiboto", "valdez", "8"),
    ];
    for (game, rules, max) in cases {
        for rule in ["start", "even"] {
            let mut args = build_args(game, max, rule);
            args.extend(["--rules", rules]);
            let one = tempfile::tempdir().unwrap();
            alone(one.path(), &args);
            let want = files(&one.path().join("t"), ".adjt");
            assert_eq!(want.len() as u32, max.parse::<u32>().unwrap() + 1);
            let d = tempfile::tempdir().unwrap();
            args[9] = "r/rank-{rank}";
            let o = chunked(4, "7", d.path(), &args);
            let what = format!("{game} --rules {rules} --loop {rule}");
            assert!(o.status.success(), "{what}: {o:?}");
            let text = String::from_utf8_lossy(&o.stdout);
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| {max} |")) && l.contains("| built |"));
            let cols: Vec<&str> = row.expect("top level").split('|').map(str::trim).collect();
            assert_ne!(
                cols[14], "0",
                "{what}: no lookup went to another rank: {text}"
            );
            let dirs: Vec<PathBuf> = (0..4)
                .map(|r| d.path().join(format!("r/rank-{r}")))
                .collect();
            for (r, dir) in dirs.iter().enumerate() {
                let mine = format!(".shard-{r:05}-of-00004.adjs");
                let names: Vec<String> = std::fs::read_dir(dir)
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.ends_with(".shards.json") && !n.starts_with(".adji-build"))
                    .collect();
                assert!(
                    names.iter().all(|n| n.ends_with(&mine)),
                    "{what}: rank {r} holds more than its shards: {names:?}"
                );
            }
            let out = tempfile::tempdir().unwrap();
            let mut merge = vec!["tables", "merge", "--game", game, "--rules", rules];
            merge.extend(["--loop", rule, "--dir", "m"]);
            let sources: Vec<String> = dirs.iter().map(|p| p.display().to_string()).collect();
            merge.extend(sources.iter().map(String::as_str));
            let o = alone(out.path(), &merge);
            assert!(o.status.success(), "{what}: merge: {o:?}");
            assert!(
                files(&out.path().join("m"), ".adjt") == want,
                "{what}: files differ"
            );
        }
    }
}

/// Messages cut into pieces of a few bytes give the openings of one
/// process (the table builds: the test above).
#[test]
fn tiny_message_chunks_give_the_openings_of_one_process() {
    let args = openings_args(&["--depth", "3"]);
    let one = tempfile::tempdir().unwrap();
    alone(one.path(), &args);
    let d = tempfile::tempdir().unwrap();
    let o = chunked(3, "5", d.path(), &args);
    assert!(o.status.success(), "{o:?}");
    assert!(outputs(d.path()) == outputs(one.path()), "openings differ");
}

/// A chunk size that is not a whole number of bytes from 1 up is one error,
/// written once, naming the variable, and no rank builds anything.
#[test]
fn a_bad_chunk_size_is_one_error_naming_the_variable() {
    for bad in ["0", "lots", "4294967296"] {
        let d = tempfile::tempdir().unwrap();
        let o = chunked(2, bad, d.path(), &build_args("adjito", "3", "start"));
        assert!(!o.status.success(), "{bad}: {o:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(errors.len(), 1, "{bad}: {stderr}");
        assert!(errors[0].contains("ADJI_MPI_CHUNK_BYTES"), "{stderr}");
        assert!(!d.path().join("t").exists(), "{bad}: something was built");
    }
}
