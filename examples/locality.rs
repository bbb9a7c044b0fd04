//! Cost of one builder event (quiet predecessors generated, ranked, and a
//! 4-byte cell of each updated atomically) on a quarter of Adjito's level
//! N, with the events in random order, in rank order, and in the order of
//! their rotated boards' ranks; CPU time per event, one thread:
//! `locality N [huge]` (`huge`: cells on transparent huge pages).
use adji::game::*;
use adji::index::*;
use adji::Adjito;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
struct Instant(u64);
impl Instant {
    fn now() -> Self {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
        Instant(s.split_whitespace().next().unwrap().parse().unwrap())
    }
    fn secs(&self) -> f64 {
        (Instant::now().0 - self.0) as f64 / 1e9
    }
}
fn prefetch<T>(x: &T) {
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    }
}

fn run(n: usize, boards_in: &[[u8; MAX_PITS]], cells: &[AtomicU32], label: &str) {
    let t = Instant::now();
    let mut preds: Vec<u32> = Vec::with_capacity(256);
    for ch in boards_in.chunks(32) {
        preds.clear();
        for b in ch {
            let pos = Position {
                pits: *b,
                side: 0,
                opening: 0,
            };
            Adjito::for_each_quiet_predecessor(&pos, |q| {
                let r = rank(&q.pits, 12) as u32;
                prefetch(&cells[r as usize]);
                preds.push(r);
            });
        }
        for &r in &preds {
            cells[r as usize].fetch_add(1, Relaxed);
        }
    }
    println!(
        "level {n} {label}: {:.1} ns/event",
        t.secs() * 1e9 / boards_in.len() as f64
    );
}

fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let size = level_size(n, 12) as usize;
    let huge = std::env::args().nth(2).is_some();
    let mut map = memmap2::MmapMut::map_anon(size * 4).unwrap();
    if huge {
        map.advise(memmap2::Advice::HugePage).unwrap();
    }
    map.fill(0);
    let cells: &[AtomicU32] =
        unsafe { std::slice::from_raw_parts(map.as_ptr() as *const AtomicU32, size) };
    println!("huge {huge}");
    let mut all: Vec<[u8; MAX_PITS]> = boards(0..size as u64, n, 12).map(|(_, b)| b).collect();
    // pseudo-random order
    let mut s = 1u64;
    for i in (1..all.len()).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (s >> 33) as usize % (i + 1);
        all.swap(i, j);
    }
    let sample: Vec<_> = all[..all.len() / 4].to_vec();
    run(n, &sample, cells, "random order");
    let mut by_rank = sample.clone();
    by_rank.sort_by_key(|b| rank(b, 12));
    run(n, &by_rank, cells, "rank order");
    let mut by_rot = sample.clone();
    by_rot.sort_by_key(|b| rank(&rotate_half::<12>(b), 12));
    run(n, &by_rot, cells, "rotated-rank order");
}
