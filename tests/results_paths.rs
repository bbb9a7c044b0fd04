//! Results anyone can rerun: no file under `results/` holds an absolute
//! path of the machine it was made on. Commands there are relative to the
//! repository root, and table directories are named by a variable the file
//! defines (`TABLES=…`), so a reader can run them on their own machine.
//!
//! A path is flagged where `/work/`, `/home/`, `/root/`, `/tmp/`, `/mnt/`
//! or `/scratch/` starts a line or follows a character that is not a
//! letter, a digit, `_` or `.` (the regular expression
//! `(^|[^[:alnum:]_.])/(work|home|root|tmp|mnt|scratch)/`, written out by
//! hand since the crate does not depend on `regex`). Every file is read as
//! bytes, binary ones included; the test names each file and line.

use std::path::{Path, PathBuf};

/// The directories that betray a machine when a path starts with them.
const ROOTS: [&str; 6] = ["work", "home", "root", "tmp", "mnt", "scratch"];

/// Whether `line` holds an absolute machine path (see the module's top).
fn has_machine_path(line: &[u8]) -> bool {
    (0..line.len()).any(|i| {
        let boundary = i == 0 || {
            let c = line[i - 1];
            !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
        };
        boundary
            && line[i] == b'/'
            && ROOTS.iter().any(|root| {
                let rest = &line[i + 1..];
                rest.len() > root.len()
                    && rest.starts_with(root.as_bytes())
                    && rest[root.len()] == b'/'
            })
    })
}

/// Every file under `dir`, in a stable order.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// `file:line: text` for every line of the files under `dir` that holds a
/// machine path.
fn offenders(dir: &Path) -> Vec<String> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut found = Vec::new();
    for f in &all {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display()));
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if has_machine_path(line) {
                let text = String::from_utf8_lossy(line);
                let short: String = text.chars().take(120).collect();
                let name = f.strip_prefix(dir.parent().unwrap_or(dir)).unwrap_or(f);
                found.push(format!(
                    "{}:{}: {}",
                    name.display(),
                    n + 1,
                    short.trim_end()
                ));
            }
        }
    }
    found
}

#[test]
fn no_absolute_machine_path_in_results() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let found = offenders(&dir);
    assert!(
        found.is_empty(),
        "{} line(s) under results/ hold an absolute path of a machine \
         (use a path relative to the repository root, or `$TABLES` and \
         the like, defined near the top of the file):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_check_flags_machine_paths_and_nothing_else() {
    for bad in [
        "/work/tables/adjito-start-000.adjt: ok",
        "adji tables verify --dir /work/tables",
        "--dir=/home/me/t",
        "(`/tmp/ts18`)",
        "x\t/root/a",
        "\"/mnt/data/x\"",
        "cd /scratch/run/",
        "a:/work/b",
    ] {
        assert!(has_machine_path(bad.as_bytes()), "not flagged: {bad}");
    }
    for good in [
        "adji tables verify --dir $TABLES",
        "results/runs/tables-verify-adjito-full.log",
        "target/release/adji bench",
        "x_/work/y",
        "a.b/tmp/c",
        "v2/home/x",
        "/work",
        "/workspace/x",
        "/tmpfs/x",
        "/usr/bin/time -v",
        "/proc/sys/vm/dirty_bytes",
    ] {
        assert!(!has_machine_path(good.as_bytes()), "flagged: {good}");
    }

    // The walk reads every file, in subdirectories too, and names the line.
    let dir = std::env::temp_dir().join(format!("adji-results-paths-{}", std::process::id()));
    let sub = dir.join("results").join("runs");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(dir.join("results").join("a.md"), "clean\n").unwrap();
    std::fs::write(sub.join("b.log"), "one\ntwo /work/tables\n").unwrap();
    let found = offenders(&dir.join("results"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("results/runs/b.log:2: "), "{found:?}");
}
