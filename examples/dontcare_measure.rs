//! Measures don't-care filling (issue 52) on built tables: where a capture
//! is best (`value = E`, the capture bound), any stored byte `s ≤ E` gives
//! the value back as `max(E, s)`. For blocks of 4,096 ranks, one in STRIDE,
//! the zstd 12 size of the raw bytes and of each filling: the library's
//! two ([`adji::tables::dontcare::Fill`]), the previous stored byte where
//! it is allowed, `E − 1`, and per block the better of the library's two.
//! Prints the share of free entries, the count of entries whose value is
//! below `E` (none may be), and each ratio.
//!
//! `dontcare_measure GAME DIR LEVEL[,LEVEL…] [STRIDE] [TRANSFORM]`
use adji::game::Game;
use adji::tables::compressed::codec::{encode_block, BlockPlace, Transform};
use adji::tables::dontcare::{capture_bound, fill, Fill};
use adji::tables::{level_positions, OpenCheck, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

const BLOCK: u64 = 4096;

/// The capture bound of every position of ranks `first..last` of `level`
/// (`i32::MIN` for none: every move quiet).
fn bounds<G: Game>(set: &TableSet, level: u32, first: u64, last: u64) -> Vec<i32> {
    level_positions::<G>(level, first..last)
        .map(|(_, pos)| {
            capture_bound::<G>(set, &pos)
                .expect("lower level present")
                .unwrap_or(i32::MIN)
        })
        .collect()
}

fn run<G: Game>(dir: &str, levels: &[u32], stride: u64, tr: Transform) {
    let set = TableSet::open_available_checked::<G>(
        std::path::Path::new(dir),
        LoopRule::Start,
        OpenCheck::Header,
    )
    .expect("tables open");
    let names = [
        "raw",
        "runs",
        "lowest",
        "previous",
        "E-1",
        "best of runs, lowest",
    ];
    for &level in levels {
        let table = set.level(level).expect("level present");
        let size = table.len() as u64;
        let mut sizes = [0usize; 6];
        let (mut n, mut nfree, mut below, mut raw) = (0u64, 0u64, 0u64, 0usize);
        let mut bytes = vec![0u8; BLOCK as usize];
        for b in (0..size.div_ceil(BLOCK)).step_by(stride as usize) {
            let (first, last) = (b * BLOCK, ((b + 1) * BLOCK).min(size));
            let block = &mut bytes[..(last - first) as usize];
            table.values_into(first as usize, block).unwrap();
            let free: Vec<Option<i8>> = block
                .iter()
                .zip(bounds::<G>(&set, level, first, last))
                .map(|(&s, e)| {
                    let v = s as i8;
                    if v == i8::MIN || e == i32::MIN {
                        return None;
                    }
                    below += u64::from((v as i32) < e);
                    (v as i32 == e).then_some(v)
                })
                .collect();
            n += block.len() as u64;
            nfree += free.iter().flatten().count() as u64;
            let mut prev = 0i8;
            let previous: Vec<u8> = block
                .iter()
                .zip(&free)
                .map(|(&s, f)| {
                    prev = match *f {
                        Some(e) if prev <= e && prev > -(level as i8) => prev,
                        Some(e) => e,
                        None => s as i8,
                    };
                    prev as u8
                })
                .collect();
            let minus: Vec<u8> = block
                .iter()
                .zip(&free)
                .map(|(&s, f)| match *f {
                    Some(e) if e > -(level as i8) => (e - 1) as u8,
                    _ => s,
                })
                .collect();
            let fills = [
                block.to_vec(),
                fill(block, &free, level, Fill::Runs),
                fill(block, &free, level, Fill::Lowest),
                previous,
                minus,
            ];
            let place = BlockPlace {
                first,
                level,
                pits: G::PITS,
            };
            let each: Vec<usize> = fills
                .iter()
                .map(|f| encode_block(f, tr, place, 12).unwrap().len())
                .collect();
            for k in 0..5 {
                sizes[k] += each[k];
            }
            sizes[5] += each[1].min(each[2]);
            raw += block.len();
        }
        print!(
            "| {} | {level} | {n} | {:.1}% | {below} |",
            G::ID,
            100.0 * nfree as f64 / n as f64
        );
        for (k, s) in sizes.iter().enumerate() {
            print!(" {}: {:.2}× |", names[k], raw as f64 / *s as f64);
        }
        println!();
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 3 {
        eprintln!("usage: dontcare_measure GAME DIR LEVEL[,LEVEL…] [STRIDE] [TRANSFORM]");
        std::process::exit(2);
    }
    let levels: Vec<u32> = a[2].split(',').map(|s| s.parse().expect("LEVEL")).collect();
    let stride = a.get(3).map_or(8, |s| s.parse().expect("STRIDE"));
    let tr = a.get(4).map_or(Transform::None, |s| {
        *Transform::ALL
            .iter()
            .find(|t| t.name() == s)
            .expect("TRANSFORM")
    });
    match a[0].as_str() {
        "adjito" => run::<Adjito>(&a[1], &levels, stride, tr),
        "adjiboto" => run::<AdjiBoto>(&a[1], &levels, stride, tr),
        g => {
            eprintln!("unknown game {g}");
            std::process::exit(2);
        }
    }
}
