//! The house's size rule (issue 38): no source file of the library or the
//! command line is longer than 800 lines, so that each can be read at once.

use std::path::Path;

const MAX_LINES: usize = 800;

fn walk(dir: &Path, out: &mut Vec<(String, usize)>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("source file reads");
            let name = path
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, text.lines().count()));
        }
    }
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(
        files.len() > 50,
        "the walk found the sources: {}",
        files.len()
    );
    let long: Vec<_> = files.iter().filter(|(_, n)| *n > MAX_LINES).collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}
