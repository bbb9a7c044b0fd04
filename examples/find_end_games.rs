//! Finds short games that end by each end rule, by seeded random playouts.
//! Used once to pick the move lists in `tests/rules.rs`; rerun with
//! `cargo run --release --example find_end_games`.

use adji::driver::Driver;
use adji::game::{EndReason, Game, State};
use adji::notation::{format_move, format_state};
use adji::{AdjiBoto, Adjito};

fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

fn find<G: Game>(start: State, want: EndReason, seed: u64, max_len: usize) {
    let mut rng = seed;
    for _ in 0..200_000 {
        let mut d = Driver::<G>::new(start);
        let mut names = Vec::new();
        while d.result().is_none() && names.len() < max_len {
            let pos = d.state().pos;
            let ml = G::legal_moves(&pos);
            let mv = ml.get((lcg(&mut rng) as usize) % ml.len());
            names.push(format_move::<G>(&pos, mv));
            d.play(mv).unwrap();
        }
        if let Some(r) = d.result() {
            if r.reason == want {
                println!(
                    "{:?} from {}: {} => {:?}",
                    want,
                    format_state::<G>(&start),
                    names.join(" "),
                    r
                );
                return;
            }
        }
    }
    println!("{want:?}: none found");
}

fn main() {
    let a = |s: &str| {
        adji::notation::parse_state::<Adjito>(s, adji::notation::Stores::Required).unwrap()
    };
    let b = |s: &str| {
        adji::notation::parse_state::<AdjiBoto>(s, adji::notation::Stores::Required).unwrap()
    };
    find::<Adjito>(a("0,0,1,0,0,1/1,0,0,1,0,0 B 22-22"), EndReason::Loop, 1, 40);
    find::<Adjito>(a("start"), EndReason::MoreThanHalf, 2, 400);
    find::<Adjito>(
        a("0,0,0,0,0,1/1,0,0,0,0,1 B 23-22"),
        EndReason::CannotFeed,
        3,
        40,
    );
    find::<AdjiBoto>(
        b("0,0,2,0,1/1,0,0,2,0 0 47-47 main"),
        EndReason::NoMoves,
        4,
        40,
    );
}
