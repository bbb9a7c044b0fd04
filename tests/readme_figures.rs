//! Every figure the README and the documents under `docs/` quote from
//! `results/` is there: each paragraph or list item of those files that
//! cites files under `results/` is read,
//! and every figure in it (a number with a decimal point, or a whole number
//! of three digits or more, outside backticks) must appear in one of the
//! cited files, to the precision the README gives it and in any of the forms
//! results use (`10.6 M`, `10599756`, `10,599,756`, `5.6·10⁹`). A figure
//! that no cited file holds is stale or unsourced: the test names it.

use std::path::Path;

/// The README's blocks: paragraphs and list items, with their line numbers.
fn blocks(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") {
            fenced = !fenced;
            out.extend(cur.take());
            continue;
        }
        let starts_item = t.starts_with("- ") || t.starts_with("| ") || t.starts_with('#');
        if fenced || t.is_empty() || starts_item {
            out.extend(cur.take());
        }
        if fenced || t.is_empty() {
            continue;
        }
        let c = cur.get_or_insert_with(|| (i + 1, String::new()));
        c.1.push(' ');
        c.1.push_str(t);
    }
    out.extend(cur);
    out
}

/// The `results/…` files a block cites (paths inside backticks or links).
fn cited(block: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut rest = block;
    while let Some(i) = rest.find("results/") {
        let tail = &rest[i..];
        let end = tail.find(['`', ')', ' ', ',', ';']).unwrap_or(tail.len());
        let p = tail[..end].trim_end_matches(['.', ':']);
        if p.len() > "results/".len() {
            v.push(p.to_string());
        }
        rest = &tail[end..];
    }
    v
}

/// Text outside backticks (code, paths and commands are not figures).
fn prose(block: &str) -> String {
    block
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, s)| s)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A number found in text: its value and the half-width of its last digit.
#[derive(Clone, Copy, Debug)]
struct Figure {
    value: f64,
    half_ulp: f64,
}

/// Numbers in `text`, with thousands separators, `M`/`k`/`G` suffixes and
/// `·10ⁿ` powers applied. `figures_only` keeps the README's figures:
/// decimals, or whole numbers of three digits or more, not glued to letters
/// (`2B`, `rank-0`, `§4`).
fn numbers(text: &str, figures_only: bool) -> Vec<Figure> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let prev = if i > 0 { chars[i - 1] } else { ' ' };
        if !chars[i].is_ascii_digit() || prev.is_ascii_digit() || prev == '.' {
            i += 1;
            continue;
        }
        let before: String = chars[i.saturating_sub(5)..i].iter().collect();
        let glued = prev.is_alphabetic()
            || prev == '§'
            || prev == '-'
            || prev == '_'
            || before.ends_with("HTTP ");
        let mut s = String::new();
        let mut j = i;
        while j < chars.len() {
            let c = chars[j];
            let next_digit = chars.get(j + 1).is_some_and(|d| d.is_ascii_digit());
            if c.is_ascii_digit() {
                s.push(c);
            } else if c == ','
                && next_digit
                && chars.get(j + 4).is_none_or(|d| !d.is_ascii_digit())
                && chars[j + 1..].iter().take(3).all(|d| d.is_ascii_digit())
            {
                // a thousands separator: exactly three digits follow
            } else if c == '.' && next_digit && !s.contains('.') {
                s.push('.');
            } else {
                break;
            }
            j += 1;
        }
        let decimals = s.split('.').nth(1).map_or(0, str::len);
        let Ok(mut value) = s.parse::<f64>() else {
            i = j;
            continue;
        };
        let mut half_ulp = 0.5 * 10f64.powi(-(decimals as i32));
        let after: String = chars[j..].iter().take(6).collect();
        let after_t = after.trim_start();
        let scale = if after.starts_with("·10") {
            let exp: String = chars[j + 3..]
                .iter()
                .take_while(|c| "⁰¹²³⁴⁵⁶⁷⁸⁹".contains(**c))
                .map(|c| {
                    char::from_digit(
                        "⁰¹²³⁴⁵⁶⁷⁸⁹".chars().position(|d| d == *c).unwrap() as u32,
                        10,
                    )
                    .unwrap()
                })
                .collect();
            exp.parse::<i32>().map_or(1.0, |e| 10f64.powi(e))
        } else if after_t.starts_with('M')
            && !after_t[1..].starts_with(|c: char| c.is_alphanumeric())
        {
            1e6
        } else {
            1.0
        };
        value *= scale;
        half_ulp *= scale;
        let big = s.replace('.', "").len() >= 3 || decimals > 0;
        if !figures_only || (big && !glued) {
            out.push(Figure { value, half_ulp });
        }
        i = j;
    }
    out
}

/// Whether `f` (as the README rounds it) is one of `pool`, in any precision.
fn found(f: Figure, pool: &[Figure]) -> bool {
    pool.iter().any(|p| {
        let tol = f.half_ulp.max(p.half_ulp) + 1e-9 * f.value.abs();
        (p.value - f.value).abs() <= tol
    })
}

/// The text files a citation names: a file, a folder's files, or a pattern
/// with `*` (`results/tables-*-stats.md`); a pattern with a placeholder
/// (`results/openings-<game>-<K>/`) names no file and gives none. Pictures
/// hold no figures.
fn texts(root: &Path, cite: &str) -> Result<Vec<String>, String> {
    if cite.contains('<') {
        return Ok(Vec::new());
    }
    let p = root.join(cite);
    let paths: Vec<std::path::PathBuf> = if let Some((head, tail)) = cite.split_once('*') {
        let dir = root.join(head).parent().unwrap().to_path_buf();
        let name_head = Path::new(head)
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let found: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .map(|e| e.unwrap().path())
            .filter(|q| {
                let n = q.file_name().unwrap().to_string_lossy();
                n.starts_with(&name_head) && n.ends_with(tail)
            })
            .collect();
        if found.is_empty() {
            return Err("no file matches".into());
        }
        found
    } else if p.is_dir() {
        std::fs::read_dir(&p)
            .map_err(|e| e.to_string())?
            .map(|e| e.unwrap().path())
            .collect()
    } else if p.exists() {
        vec![p]
    } else {
        return Err("no such file".into());
    };
    Ok(paths
        .iter()
        .filter_map(|q| std::fs::read_to_string(q).ok())
        .map(|t| current(&t))
        .collect())
}

/// `text` without its superseded passages: a results file keeps the history
/// of a measurement, and marks the figures a later run replaced between
/// `<!-- superseded -->` and `<!-- /superseded -->`, so that the README
/// cannot quote them as current.
fn current(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("<!-- superseded -->") {
        out.push_str(&rest[..i]);
        rest = rest[i..]
            .find("<!-- /superseded -->")
            .map_or("", |j| &rest[i + j..]);
    }
    out.push_str(rest);
    out
}

/// The figures of `readme` missing from the results files they cite.
fn missing(readme: &str, root: &Path) -> Vec<String> {
    missing_in("README", readme, root)
}

/// The figures of the document `name` (text `doc`) missing from the
/// results files they cite, each named by the document and its line.
fn missing_in(name: &str, doc: &str, root: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for (line, block) in blocks(doc) {
        let files = cited(&block);
        if files.is_empty() {
            continue;
        }
        let mut pool = Vec::new();
        for f in &files {
            match texts(root, f) {
                Ok(ts) => ts.iter().for_each(|t| pool.extend(numbers(t, false))),
                Err(e) => bad.push(format!("{name} line {line}: cites {f}: {e}")),
            }
        }
        for f in numbers(&prose(&block), true) {
            if !found(f, &pool) {
                bad.push(format!(
                    "{name} line {line}: the figure {} is in none of {files:?}",
                    f.value
                ));
            }
        }
    }
    bad
}

#[test]
fn every_figure_the_readme_quotes_is_in_the_results_it_cites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let bad = missing(&readme, root);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_figure_the_docs_quote_is_in_the_results_they_cite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 8, "docs/ lost its documents: {docs:?}");
    let mut bad = Vec::new();
    for p in &docs {
        let name = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
        bad.extend(missing_in(
            &name,
            &std::fs::read_to_string(p).unwrap(),
            root,
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The README stays a page a newcomer reads in five minutes.
#[test]
fn the_readme_is_at_most_200_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n = std::fs::read_to_string(root.join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(n <= 200, "README.md has {n} lines; move detail into docs/");
}

/// The checker itself: a figure that moved, and one quoted in another form.
#[test]
fn the_checker_finds_a_stale_figure_and_accepts_other_forms() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("results")).unwrap();
    std::fs::write(
        dir.path().join("results/x.md"),
        "nodes 10599756, time 4.51 s, 5,600,000,000 positions, ratio 2.96\n",
    )
    .unwrap();
    let ok = "- It takes 10.6 M nodes and 4.5 s, 5.6·10⁹ positions, 2.96 (`results/x.md`).\n";
    assert!(
        missing(ok, dir.path()).is_empty(),
        "{:?}",
        missing(ok, dir.path())
    );
    let stale = "- It takes 13.3 M nodes (`results/x.md`).\n";
    assert_eq!(missing(stale, dir.path()).len(), 1);
    let gone = "- See `results/y.md`: 1.5 s.\n";
    assert_eq!(
        missing(gone, dir.path()).len(),
        2,
        "{:?}",
        missing(gone, dir.path())
    );
    // A figure a later run replaced does not count.
    std::fs::write(
        dir.path().join("results/z.md"),
        "now 10.6 M; <!-- superseded -->before 13.3 M<!-- /superseded --> done\n",
    )
    .unwrap();
    let old = "- It takes 13.3 M nodes (`results/z.md`).\n";
    assert_eq!(missing(old, dir.path()).len(), 1);
    assert!(missing("- 10.6 M (`results/z.md`).\n", dir.path()).is_empty());
    // Whole numbers under three digits, and names like 2B, are not figures.
    let small = "- 2B wins by 2 of 48 seeds (`results/x.md`).\n";
    assert!(missing(small, dir.path()).is_empty());
}

/// Every relative link of the README and of `docs/` (`[text](path)`, an
/// anchor after `#` ignored) names a file or folder that exists.
#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    files.extend(
        std::fs::read_dir(root.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md")),
    );
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            let tail = &rest[i + 2..];
            let end = tail.find(')').unwrap_or(tail.len());
            let target = tail[..end].split('#').next().unwrap_or("");
            rest = &tail[end..];
            if target.is_empty() || target.contains("://") {
                continue;
            }
            if !f.parent().unwrap().join(target).exists() {
                bad.push(format!("{}: link to {target}", f.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
