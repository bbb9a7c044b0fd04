//! Issue 37, item 3: checking a certificate holds at most 4 times its
//! file's size, and a node count that the file cannot hold is refused
//! before anything is allocated for it. (A 25 MB certificate of 2-byte
//! records made the checker peak at about 1 GB, 41 times its size, before
//! it rejected the file.)
//!
//! A counting allocator measures, for the thread that runs a test, the
//! peak of the bytes it holds above what it held when the measure began.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use adji::certify::check::check_records;
use adji::certify::write::Writer;
use adji::certify::{Records, HEADER_LEN, MAGIC, VERSION};
use adji::game::{Game, Position};
use adji::progress::NoProgress;
use adji::search::{Options, Searcher};
use adji::tables::retrograde::build_tables;
use adji::tables::TableSet;
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::Adjito;

mod common;
use common::{lcg, playout};

struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    let _ = HELD.try_with(|h| {
        h.set(h.get() + n);
        let _ = PEAK.try_with(|p| p.set(p.get().max(h.get())));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        add(l.size() as isize);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        add(-(l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        add(l.size() as isize);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        add(new as isize - l.size() as isize);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The peak of the bytes `f` holds on this thread (above those held when
/// it starts), and its result.
fn peak<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (PEAK.with(Cell::get).saturating_sub(base) as usize, r)
}

/// A certificate file of `records` (raw node records) claiming `count`
/// nodes, with a good checksum.
fn crafted(count: u32, records: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER_LEN + records.len() + 4);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&[1, 0, 0, 254]);
    b.extend_from_slice(&adji::game::Packed::pack(&Adjito::start()).0.to_le_bytes());
    b.extend_from_slice(&0i16.to_le_bytes());
    b.extend_from_slice(&count.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    assert_eq!(b.len(), HEADER_LEN);
    b.extend_from_slice(records);
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// The shape of the attack: 2-byte records (game ends) as many as the
/// header says, 4 MB of them, and a header claiming far more than the
/// bytes hold. Both are refused with a clear error, holding nothing like
/// the file's size.
#[test]
fn node_counts_the_file_cannot_hold_are_refused_before_allocating() {
    let n = 2_000_000u32;
    let ends: Vec<u8> = [0u8, 0].repeat(n as usize);
    let file = crafted(n, &ends);
    let (held, r) = peak(|| Records::parse(&file).map(|_| ()));
    let e = r.unwrap_err().to_string();
    assert!(e.contains(&format!("{n} nodes, more than its")), "{e}");
    assert!(
        held <= file.len() / 100,
        "held {held} for a {}-byte file",
        file.len()
    );
    let file = crafted(u32::MAX, &ends);
    let (held, r) = peak(|| Records::parse(&file).map(|_| ()));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("cut short"), "{e}");
    assert!(
        held <= file.len() / 100,
        "held {held} for a {}-byte file",
        file.len()
    );
}

fn build<G: Game>(dir: &Path, rule: LoopRule, max: u32) {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap();
}

/// A certificate of `pos` with tables to `max`, as file bytes.
fn make(dir: &Path, max: u32, pos: Position) -> Vec<u8> {
    let dir = dir.to_path_buf();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let tables = TableSet::open::<Adjito>(&dir, LoopRule::Start, max).unwrap();
            let tt = AtomicTable::new(16);
            let opts = Options {
                rule: LoopRule::Start,
                parallel: false,
                ..Options::default()
            };
            let s = Searcher::<Adjito, _>::new(Some(&tables), &tt, opts).unwrap();
            let mut w = Writer::new(&s, &tables, LoopRule::Start);
            let v = w.value(&pos).unwrap();
            w.certify(&pos, v).unwrap().encode()
        })
        .unwrap()
        .join()
        .unwrap()
}

/// Checking real certificates (the writer's, thousands of nodes, through
/// quiet cycles too) holds at most 4 times the file, the file included;
/// and a certificate rejected at its last node as much.
#[test]
fn a_check_holds_at_most_four_times_the_file() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 8);
    let mut seed = 26u64;
    let (mut checked, mut tried) = (0, 0);
    while checked < 3 {
        tried += 1;
        assert!(
            tried < 500,
            "only {checked} certificates of 5,000 bytes or more"
        );
        let plies = 20 + lcg(&mut seed) % 40;
        let choices: Vec<u8> = (0..plies).map(|_| (lcg(&mut seed) % 6) as u8).collect();
        let st = playout::<Adjito>(&choices);
        if !(16..=20).contains(&st.pos.level()) || Adjito::legal_moves(&st.pos).is_empty() {
            continue;
        }
        let bytes = make(dir.path(), 8, st.pos);
        if bytes.len() < 5_000 {
            continue;
        }
        checked += 1;
        let (held, acc) = peak(|| {
            let file = bytes.clone();
            let rec = Records::parse(&file).unwrap();
            check_records(&rec, dir.path()).map(|a| a.nodes)
        });
        let nodes = acc.unwrap();
        eprintln!(
            "{nodes} nodes, {} bytes: held {held} ({:.2}x)",
            bytes.len(),
            held as f64 / bytes.len() as f64
        );
        assert!(
            held <= 4 * bytes.len(),
            "{nodes} nodes: held {held} bytes for a {}-byte file",
            bytes.len()
        );
    }
}
