//! End to end in headless Chromium (WebDriver through chromedriver): the
//! page loads, a click on a pit plays the move, and the values the page then
//! shows for every move equal the command line's `solve` for the position
//! reached; a long analysis shows progress and is cancelled by its button;
//! the rule-set selector changes the legal moves, goes into the URL, and
//! resets with the game.
//!
//! Needs Debian's `chromium` and `chromium-driver`. Without them the test
//! prints a loud SKIPPED banner (past the test harness's capture) and
//! passes, unless `ADJI_REQUIRE_BROWSER=1`, when it fails. With
//! `ADJI_SCREENSHOT=FILE` it also writes a PNG screenshot of the board.
#![cfg(feature = "server")]

mod server_util;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use server_util::*;

/// The position the test starts from, and the move it clicks.
const START: &str = "0,1,0,3,1,1/0,1,3,1,1,2 B 17-17";
const CLICK: &str = "3B";

fn find(env: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    candidates.iter().map(PathBuf::from).find(|p| p.is_file())
}

/// Says, where the harness does not swallow it, that the test did not run.
fn skip(why: &str) {
    let banner = format!(
        "\n{0}\nSKIPPED: the browser test did not run: {why}.\n\
         Install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver),\n\
         or set ADJI_CHROMIUM / ADJI_CHROMEDRIVER. Set ADJI_REQUIRE_BROWSER=1 to make this a failure.\n{0}\n",
        "!".repeat(100)
    );
    // Written to the process's stderr directly: libtest captures only the
    // print macros, so this shows even when the test passes.
    let _ = std::io::stderr().write_all(banner.as_bytes());
    assert!(
        std::env::var("ADJI_REQUIRE_BROWSER").as_deref() != Ok("1"),
        "ADJI_REQUIRE_BROWSER=1 and {why}"
    );
}

/// A chromedriver child, killed on drop.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start_driver(path: &Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let d = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let ready = eventually(Duration::from_secs(20), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .await;
    assert!(ready, "chromedriver did not listen on port {port}");
    d
}

async fn browser(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let args = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1280,760",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    let serde_json::Value::Object(caps) = caps else {
        unreachable!()
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a WebDriver session")
}

/// Runs `script` in the page and returns its value.
async fn eval(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect("the script runs")
}

/// Waits until the page has finished the analysis of `position`.
async fn analysed(c: &Client, position: &str) -> Value {
    let t = Instant::now();
    loop {
        let v = eval(
            c,
            "return {pos: document.body.dataset.position || null,
                     state: document.getElementById('analysis').dataset.state};",
        )
        .await;
        if v["pos"] == position && v["state"] == "done" {
            return v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no analysis of {position}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What the page shows for each move: the table and the badge on the pit.
const SHOWN: &str = "return [...document.querySelectorAll('#moves tbody tr')].map(tr => {
    const badge = document.querySelector(`#board g.pit[data-move='${tr.dataset.move}'] .badge`);
    return {move: tr.dataset.move, lower: Number(tr.dataset.lower), upper: Number(tr.dataset.upper),
            text: tr.children[1].textContent, verdict: tr.children[3].textContent,
            badge: badge ? badge.dataset.value : null};
});";

/// The rows of the moves table that show an estimate, with their badges.
const ESTIMATES: &str =
    "return [...document.querySelectorAll('#moves tbody tr[data-estimate]')].map(tr => {
    const badge = document.querySelector(`#board g.pit[data-move='${tr.dataset.move}'] .badge`);
    return {move: tr.dataset.move, exact: tr.dataset.exact, lower: Number(tr.dataset.lower),
            upper: Number(tr.dataset.upper), text: tr.children[1].textContent,
            estimate: tr.children[2].textContent, badge: badge.textContent,
            badge_class: badge.getAttribute('class')};
});";

/// The moves of the move list (played and undone).
const HISTORY: &str =
    "return [...document.querySelectorAll('#history button')].map(b => b.textContent);";

/// Clicks the element with id `id`.
async fn click(c: &Client, id: &str) {
    c.find(Locator::Id(id))
        .await
        .unwrap_or_else(|e| panic!("#{id}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("#{id}: {e}"));
}

/// The page's text for a value: `+2`, `−3`, `0`, or `−1…+3` for bounds.
fn shown(lower: i64, upper: i64) -> String {
    let s = |v: i64| match v {
        0 => "0".to_string(),
        v if v > 0 => format!("+{v}"),
        v => format!("−{}", -v),
    };
    if lower == upper {
        s(lower)
    } else {
        format!("{}…{}", s(lower), s(upper))
    }
}

/// Chromium and chromedriver, or `None` after [`skip`] has said why.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let Some(chromium) = find(
        "ADJI_CHROMIUM",
        &["/usr/bin/chromium", "/usr/bin/chromium-browser"],
    ) else {
        skip(
            "no Chromium (looked for $ADJI_CHROMIUM, /usr/bin/chromium, /usr/bin/chromium-browser)",
        );
        return None;
    };
    let Some(chromedriver) = find("ADJI_CHROMEDRIVER", &["/usr/bin/chromedriver"]) else {
        skip("no chromedriver (looked for $ADJI_CHROMEDRIVER, /usr/bin/chromedriver)");
        return None;
    };
    Some((chromium, chromedriver))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_plays_a_clicked_move_and_shows_the_command_lines_values() {
    let Some((chromium, chromedriver)) = tools() else {
        return;
    };
    let s = start(small(1, 4, 60)).await;
    let driver = start_driver(&chromedriver).await;
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver, &chromium, profile.path()).await;

    c.goto(&format!("{}/?game=adjito&position={}", s.base, enc(START)))
        .await
        .unwrap();
    analysed(&c, START).await;

    // Click the pit: the page plays the move through the server.
    let after = cli_json(&["replay", "--position", START, "--moves", CLICK, "--json"]);
    let after = after["steps"][0]["position"].as_str().unwrap().to_string();
    c.find(Locator::Css(&format!("#board g.pit[data-move='{CLICK}']")))
        .await
        .expect("the pit is a legal move")
        .click()
        .await
        .unwrap();
    analysed(&c, &after).await;

    let page = eval(&c, SHOWN).await;
    let cli = cli_json(&[
        "solve",
        "--position",
        &after,
        "--json",
        "--no-tables",
        "--threads",
        "1",
    ]);
    let page = page.as_array().unwrap();
    let cli_moves = cli["moves"].as_array().unwrap();
    assert_eq!(page.len(), cli_moves.len(), "{page:?}");
    for m in cli_moves {
        let name = m["move"].as_str().unwrap();
        let p = page
            .iter()
            .find(|p| p["move"] == name)
            .unwrap_or_else(|| panic!("{name} not shown"));
        let (lo, hi) = (m["lower"].as_i64().unwrap(), m["upper"].as_i64().unwrap());
        assert_eq!(
            (p["lower"].as_i64(), p["upper"].as_i64()),
            (Some(lo), Some(hi))
        );
        assert_eq!(p["text"], shown(lo, hi), "{name}");
        assert_eq!(p["badge"], shown(lo, hi), "{name} on the board");
    }
    let summary = eval(&c, "return document.getElementById('summary').textContent;").await;
    assert!(
        summary
            .as_str()
            .unwrap()
            .contains(cli["wdl"].as_str().unwrap()),
        "{summary}"
    );
    if let Ok(path) = std::env::var("ADJI_SCREENSHOT") {
        let png = c.screenshot().await.unwrap();
        std::fs::write(&path, png).unwrap();
    }

    // The engine takes A: it answers with a best move (the value is exact).
    let engine = c.find(Locator::Id("engine")).await.unwrap();
    engine.select_by_value("1").await.unwrap();
    let best: Vec<&str> = cli["best_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let t = Instant::now();
    let played = loop {
        let h = eval(&c, HISTORY).await;
        if h.as_array().unwrap().len() == 2 {
            break h[1].as_str().unwrap().to_string();
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the engine did not move"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(best.contains(&played.as_str()), "{played} not in {best:?}");

    // Undo twice returns to the start (the engine waits); a long analysis
    // can be cancelled.
    engine.select_by_value("none").await.unwrap();
    for _ in 0..2 {
        click(&c, "undo").await;
    }
    analysed(&c, START).await;
    assert_eq!(eval(&c, HISTORY).await.as_array().unwrap().len(), 2);
    click(&c, "new-game").await;
    let q = std::sync::Arc::clone(s.app.queue());
    assert!(eventually(Duration::from_secs(10), || q.admitted() == 1).await);
    // The progress line counts the nodes searched so far.
    let t = Instant::now();
    loop {
        let p = eval(
            &c,
            "return document.getElementById('progress-text').textContent;",
        )
        .await;
        if p.as_str().unwrap().contains("nodes") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "no progress shown: {p}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    click(&c, "cancel").await;
    assert!(
        eventually(Duration::from_secs(5), || q.admitted() == 0).await,
        "the cancelled solve still runs"
    );
    let state = eval(
        &c,
        "return document.getElementById('analysis').dataset.state;",
    )
    .await;
    assert_eq!(state, "cancelled");

    // Beyond the exact search's reach in 1 s: proven bounds, with the
    // engine's estimates shown apart (≈, an estimate badge), never as values.
    let deep = "5,4,6,3,2/4,5,3,6,2 0 30-30 main";
    c.goto(&format!(
        "{}/?game=adjiboto&time=1&position={}",
        s.base,
        enc(deep)
    ))
    .await
    .unwrap();
    analysed(&c, deep).await;
    let rows = eval(&c, ESTIMATES).await;
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r["exact"], "false", "{r}");
        let (lo, hi) = (r["lower"].as_i64().unwrap(), r["upper"].as_i64().unwrap());
        assert_eq!(
            r["text"],
            shown(lo, hi),
            "the value column keeps the bounds: {r}"
        );
        assert!(r["estimate"].as_str().unwrap().starts_with('≈'), "{r}");
        assert!(r["badge"].as_str().unwrap().starts_with('≈'), "{r}");
        assert_eq!(r["badge_class"], "badge inexact estimate", "{r}");
    }
    c.close().await.unwrap();
}

/// Adjito, B to move: 1B stays in B's row, 6B reaches A's; must-reach
/// allows only 6B.
const REACH: &str = "0,0,1,0,0,1/1,0,0,0,0,1 B 22-22";

/// Waits until the page shows `position` with `rules` in its URL, and
/// returns the legal moves on the board.
async fn legal_under(c: &Client, position: &str, rules: &str) -> Vec<String> {
    let t = Instant::now();
    loop {
        let v = eval(
            c,
            "return {pos: document.body.dataset.position || null,
                     rules: new URLSearchParams(location.search).get('rules'),
                     moves: [...document.querySelectorAll('#board g.pit[data-move]')]
                              .map(g => g.dataset.move)};",
        )
        .await;
        if v["pos"] == position && v["rules"] == rules {
            let mut m: Vec<String> = v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            m.sort();
            return m;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no board for {position} under {rules}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The options of the rule-set selector and the one selected.
async fn rule_choice(c: &Client) -> Value {
    eval(
        c,
        "const s = document.getElementById('rules');
         return {options: [...s.options].map(o => o.value), value: s.value};",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rule_set_selector_changes_the_legal_moves() {
    let Some((chromium, chromedriver)) = tools() else {
        return;
    };
    let s = start(small(1, 4, 10)).await;
    let driver = start_driver(&chromedriver).await;
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver, &chromium, profile.path()).await;

    c.goto(&format!("{}/?game=adjito&position={}", s.base, enc(REACH)))
        .await
        .unwrap();
    assert_eq!(legal_under(&c, REACH, "default").await, ["1B", "6B"]);
    assert_eq!(
        rule_choice(&c).await,
        json!({"options": ["default", "must-reach", "slam-forbidden"], "value": "default"})
    );
    // Must-reach: 1B does not reach A's row, so only 6B is legal.
    let sel = c.find(Locator::Id("rules")).await.unwrap();
    sel.select_by_value("must-reach").await.unwrap();
    assert_eq!(legal_under(&c, REACH, "must-reach").await, ["6B"]);
    let note = eval(
        &c,
        "return document.getElementById('rules-note').textContent;",
    )
    .await;
    assert!(note.as_str().unwrap().contains("must-reach"), "{note}");
    // The choice is in the URL: a reload keeps it.
    c.refresh().await.unwrap();
    assert_eq!(legal_under(&c, REACH, "must-reach").await, ["6B"]);
    assert_eq!(rule_choice(&c).await["value"], "must-reach");

    // Another game resets the rule set to that game's default.
    let game = c.find(Locator::Id("game")).await.unwrap();
    game.select_by_value("adjiboto").await.unwrap();
    let start_pos = "10,10,10,10,10/10,10,10,10,10 0 0-0 opening:";
    legal_under(&c, start_pos, "default").await;
    assert_eq!(
        rule_choice(&c).await,
        json!({"options": ["default", "valdez"], "value": "default"})
    );

    // Valdez: the third move of the game captures; by default it does not.
    let line = "5 0";
    let after = "2,12,12,12,12/2,12,12,12,12 0 0-0 opening:0,5";
    let captures = "return [...document.querySelectorAll('#moves tbody tr')]
        .map(tr => [tr.dataset.move, tr.children[4].textContent]);";
    c.goto(&format!(
        "{}/?game=adjiboto&rules=valdez&time=1&moves={}",
        s.base,
        enc(line)
    ))
    .await
    .unwrap();
    legal_under(&c, after, "valdez").await;
    let valdez = eval(&c, captures).await;
    assert!(
        valdez.as_array().unwrap().contains(&json!(["8", "3"])),
        "{valdez}"
    );
    c.find(Locator::Id("rules"))
        .await
        .unwrap()
        .select_by_value("default")
        .await
        .unwrap();
    legal_under(&c, after, "default").await;
    let default = eval(&c, captures).await;
    assert!(
        default.as_array().unwrap().contains(&json!(["8", ""])),
        "{default}"
    );
    assert_eq!(
        eval(&c, HISTORY).await,
        json!(["5", "0"]),
        "the moves are kept"
    );
    c.close().await.unwrap();
}
