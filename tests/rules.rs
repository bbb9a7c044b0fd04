//! Rule tests: the worked examples of docs/RULES.md §2 and each end rule,
//! and the same examples under every Adjito reading (`adji rules`).

use adji::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
use adji::driver::{replay, GameResult};
use adji::game::{EndReason, Game, Move, State};
use adji::notation::{format_state, parse_move, parse_state, Stores};
use adji::{AdjiBoto, Adjito};

fn st<G: Game>(s: &str) -> State {
    parse_state::<G>(s, Stores::Required).unwrap()
}

/// Plays one named move and returns the formatted result and the capture.
fn play_named<G: Game>(pos: &str, mv: &str) -> (String, u8) {
    let s = st::<G>(pos);
    let m = parse_move::<G>(&s.pos, mv).unwrap();
    let p = G::try_play(&s.pos, m).unwrap();
    let mut after = State {
        pos: p.pos,
        stores: s.stores,
    };
    after.stores[s.pos.side as usize] += p.captured as u16;
    (format_state::<G>(&after), p.captured)
}

fn moves<G: Game>(start: &State, names: &str) -> Vec<Move> {
    let mut pos = start.pos;
    names
        .split_whitespace()
        .map(|n| {
            let m = parse_move::<G>(&pos, n).unwrap();
            pos = G::play_unchecked(&pos, m).pos;
            m
        })
        .collect()
}

fn run<G: Game>(pos: &str, names: &str) -> GameResult {
    let s = st::<G>(pos);
    let r = replay::<G>(s, &moves::<G>(&s, names)).unwrap();
    r.result.expect("the game should have ended")
}

#[test]
fn worked_example_start_2b() {
    let (after, cap) = play_named::<Adjito>("start", "2B");
    assert_eq!(cap, 4);
    assert_eq!(after, "0,4,4,4,4,4/4,0,5,5,5,5 A 0-4");
}

#[test]
fn worked_example_1b_with_two_seeds() {
    // 1B holds 2: the last seed lands in 3B, which faces 4A (1 seed).
    let (after, cap) = play_named::<Adjito>("0,0,0,1,0,1/2,0,0,0,0,0 B 22-22", "1B");
    assert_eq!(cap, 1);
    assert_eq!(after, "0,0,0,0,0,1/0,1,1,0,0,0 A 22-23");
}

#[test]
fn worked_example_2b_reaching_3b() {
    let (after, cap) = play_named::<Adjito>("0,0,0,1,0,1/0,1,0,0,0,0 B 22-23", "2B");
    assert_eq!(cap, 1);
    assert_eq!(after, "0,0,0,0,0,1/0,0,1,0,0,0 A 22-24");
}

#[test]
fn worked_example_5b_with_eight_seeds() {
    // 6B, 1A..6A, 1B: the last seed lands in 1B, facing 6A, which the
    // sowing itself filled with 1 seed.
    let (after, cap) = play_named::<Adjito>("0,0,0,0,0,0/0,0,0,0,8,0 B 20-20", "5B");
    assert_eq!(cap, 1);
    assert_eq!(after, "1,1,1,1,1,0/1,0,0,0,0,1 A 20-21");
}

#[test]
fn no_capturing_everything() {
    // 1B lands in 2B facing 5A, which holds all of A's seeds: no capture.
    let (after, cap) = play_named::<Adjito>("0,0,0,0,3,0/1,0,0,0,0,0 B 22-22", "1B");
    assert_eq!(cap, 0);
    assert_eq!(after, "0,0,0,0,3,0/0,1,0,0,0,0 A 22-22");
}

#[test]
fn origin_is_skipped_with_twelve_seeds() {
    let (after, cap) = play_named::<Adjito>("0,0,0,0,0,0/12,0,0,0,0,0 B 18-18", "1B");
    // 11 seeds go round once (skipping 1B), the 12th lands in 2B, facing 5A (1): captured.
    assert_eq!(cap, 1);
    assert_eq!(after, "1,1,1,1,0,1/0,2,1,1,1,1 A 18-19");
}

#[test]
fn must_feed_limits_moves() {
    let s = st::<Adjito>("0,0,0,0,0,0/1,0,0,0,0,1 B 23-23");
    let legal: Vec<Move> = Adjito::legal_moves(&s.pos).iter().collect();
    // Only 6B (1 seed at position 6 reaches 1A) feeds.
    assert_eq!(legal, vec![parse_move::<Adjito>(&s.pos, "6B").unwrap()]);
}

#[test]
fn adjito_game_ends_by_loop_rule() {
    let r = run::<Adjito>(
        "0,0,1,0,0,1/1,0,0,1,0,0 B 22-22",
        "1B 6A 1B 3A 2B 4A 3B 5A 4B 1A 6B 6A 1B 1A 2B 2A 3B 4A 4B 5A 5B 6A 6B 1A 1B 2A 2B 3A 3B",
    );
    assert_eq!(r.reason, EndReason::Loop);
    assert_eq!(r.score, [24, 24]);
    assert_eq!(r.winner, None);
}

#[test]
fn adjito_loop_needs_no_capture_in_between() {
    // The same moves minus the last: no repeat yet, the game goes on.
    let s = st::<Adjito>("0,0,1,0,0,1/1,0,0,1,0,0 B 22-22");
    let names =
        "1B 6A 1B 3A 2B 4A 3B 5A 4B 1A 6B 6A 1B 1A 2B 2A 3B 4A 4B 5A 5B 6A 6B 1A 1B 2A 2B 3A";
    let r = replay::<Adjito>(s, &moves::<Adjito>(&s, names)).unwrap();
    assert!(r.result.is_none());
}

#[test]
fn adjito_game_ends_above_24() {
    let r = run::<Adjito>(
        "start",
        "5B 1A 2B 6A 6B 6A 4B 4A 4B 5A 6B 3A 5B 5A 2B 4A 5B 3A 4B 1A 6B 6A 3B 4A 4B 2A 6B 1A 2B 6A 1B 2A",
    );
    assert_eq!(r.reason, EndReason::MoreThanHalf);
    assert_eq!(r.score, [20, 28]);
    assert_eq!(r.winner, Some(1));
}

#[test]
fn adjito_game_ends_when_mover_cannot_feed() {
    let r = run::<Adjito>(
        "0,0,0,0,0,1/1,0,0,0,0,1 B 23-22",
        "6B 6A 1B 1A 2B 2A 3B 3A 5B 4A 4B 5A 6B 6A 5B 1A 1B 2A 6B 3A 2B 1A 3B 2A 4B 3A 5B 4A 6B",
    );
    assert_eq!(r.reason, EndReason::CannotFeed);
    assert_eq!(r.score, [23, 25]);
}

#[test]
fn adjito_mover_without_seeds_ends() {
    let s = st::<Adjito>("1,0,0,0,0,0/0,0,0,0,0,0 B 24-23");
    assert_eq!(Adjito::end_reason(&s.pos), Some(EndReason::MoverEmpty));
    assert!(Adjito::legal_moves(&s.pos).is_empty());
}

#[test]
fn adjiboto_game_with_pass_ends_when_neither_can_move() {
    // Player 0 has no pit with 2 seeds and passes; player 1 sows 0; then
    // nobody can move.
    let r = run::<AdjiBoto>("3,0,0,0,0/1,1,0,0,0 0 48-47 main", "pass 0");
    assert_eq!(r.reason, EndReason::NoMoves);
    assert_eq!(r.score, [49, 51]);
    assert_eq!(r.winner, Some(1));
}

#[test]
fn adjiboto_capture_chain_stops_at_empty_pit_and_wraps() {
    // Player 1 sows pit 0 (4 seeds, 3 sown into 1, 2, 3). Pits 4, 5 hold
    // 1 and 3 (captured), pit 6 is empty: the chain stops there.
    let (after, cap) = play_named::<AdjiBoto>("4,0,0,0,1/3,0,0,0,0 1 45-47 main", "0");
    assert_eq!(cap, 4);
    assert_eq!(after, "1,1,1,1,0/0,0,0,0,0 0 49-47 main");
}

#[test]
fn adjiboto_capture_never_takes_landing_pit() {
    // Every other pit holds 1: the chain goes all the way round and stops
    // before the landing pit.
    let s = "2,1,1,1,1/1,1,1,1,1 1 45-44 main";
    let (after, cap) = play_named::<AdjiBoto>(s, "0");
    // pit 0 keeps 1, pit 1 gets the sown seed (2); chain from 2 round to 0.
    assert_eq!(cap, 9);
    assert_eq!(after, "0,2,0,0,0/0,0,0,0,0 0 54-44 main");
}

#[test]
fn adjiboto_lap_puts_a_seed_back_in_origin() {
    let (after, cap) = play_named::<AdjiBoto>("0,0,0,0,0/12,0,0,0,0 0 44-44 opening:", "5");
    assert_eq!(cap, 0);
    // 11 sown from 5: 6..9, 0..4, then 5 itself (10th), then 6.
    assert_eq!(after, "1,1,1,1,1/2,2,1,1,1 1 44-44 opening:5");
}

#[test]
fn adjiboto_opening_forbids_replaying_a_pit_and_has_no_captures() {
    let s = st::<AdjiBoto>("start");
    let m = parse_move::<AdjiBoto>(&s.pos, "5").unwrap();
    let p = AdjiBoto::play_unchecked(&s.pos, m).pos;
    let p = AdjiBoto::play_unchecked(&p, Move(0)).pos;
    assert!(!AdjiBoto::legal_moves(&p).contains(parse_move::<AdjiBoto>(&p, "5").unwrap()));
    assert_eq!(adji::perft::perft::<AdjiBoto>(&s.pos, 10), 14_400);
}

/// The result of a named move under `G`, or `None` when it is illegal there.
fn outcome<G: Game>(pos: &str, mv: &str) -> Option<(String, u8)> {
    let s = st::<G>(pos);
    let m = parse_move::<G>(&s.pos, mv).unwrap();
    G::try_play(&s.pos, m).ok()?;
    Some(play_named::<G>(pos, mv))
}

/// A worked example under the default, must-reach and slam-forbidden
/// readings, in that order: the expected result of the move, or `None`
/// where the reading makes it illegal.
fn under_each_reading(pos: &str, mv: &str, want: [Option<(&str, u8)>; 3]) {
    let got = [
        outcome::<Adjito>(pos, mv),
        outcome::<AdjitoMustReach>(pos, mv),
        outcome::<AdjitoSlamForbidden>(pos, mv),
    ];
    let want = want.map(|w| w.map(|(a, c)| (a.to_string(), c)));
    assert_eq!(got, want, "{pos} {mv}: default, must-reach, slam-forbidden");
}

#[test]
fn readings_start_2b_is_illegal_under_must_reach() {
    // 2B's four seeds end in 6B; 3B..6B reach A's row, so must-reach
    // forbids it. Not a capture of everything: slam-forbidden plays it.
    let r = Some(("0,4,4,4,4,4/4,0,5,5,5,5 A 0-4", 4));
    under_each_reading("start", "2B", [r, None, r]);
}

#[test]
fn readings_1b_with_two_seeds() {
    // docs/RULES.md §7.1: no pit of B reaches A's row, so must-reach allows 1B.
    let r = Some(("0,0,0,0,0,1/0,1,1,0,0,0 A 22-23", 1));
    under_each_reading("0,0,0,1,0,1/2,0,0,0,0,0 B 22-22", "1B", [r, r, r]);
    // With one seed in 6B, which reaches 1A, 1B is illegal under must-reach.
    let r = Some(("0,0,0,0,0,1/0,1,1,0,0,1 A 22-22", 1));
    under_each_reading("0,0,0,1,0,1/2,0,0,0,0,1 B 22-21", "1B", [r, None, r]);
}

#[test]
fn readings_2b_reaching_3b() {
    let r = Some(("0,0,0,0,0,1/0,0,1,0,0,0 A 22-24", 1));
    under_each_reading("0,0,0,1,0,1/0,1,0,0,0,0 B 22-23", "2B", [r, r, r]);
}

#[test]
fn readings_5b_with_eight_seeds() {
    let r = Some(("1,1,1,1,1,0/1,0,0,0,0,1 A 20-21", 1));
    under_each_reading("0,0,0,0,0,0/0,0,0,0,8,0 B 20-20", "5B", [r, r, r]);
}

#[test]
fn readings_capture_of_everything() {
    // 1B is B's only move (docs/RULES.md §7.1, §7.2). By default and under
    // must-reach it is played without the capture; under slam-forbidden it
    // is forced, so it is played with the capture.
    let r = Some(("0,0,0,0,3,0/0,1,0,0,0,0 A 22-22", 0));
    let forced = Some(("0,0,0,0,0,0/0,1,0,0,0,0 A 22-25", 3));
    under_each_reading("0,0,0,0,3,0/1,0,0,0,0,0 B 22-22", "1B", [r, r, forced]);
    // With 6B to play too (it reaches and takes nothing), 1B is forbidden
    // under slam-forbidden (not forced) and under must-reach (it does not
    // reach, 6B does).
    let r = Some(("0,0,0,0,3,0/0,1,0,0,0,1 A 22-21", 0));
    under_each_reading("0,0,0,0,3,0/1,0,0,0,0,1 B 22-21", "1B", [r, None, None]);
    let six = Some(("1,0,0,0,3,0/1,0,0,0,0,0 A 22-21", 0));
    under_each_reading("0,0,0,0,3,0/1,0,0,0,0,1 B 22-21", "6B", [six, six, six]);
}

#[test]
fn readings_origin_is_skipped_with_twelve_seeds() {
    let r = Some(("1,1,1,1,0,1/0,2,1,1,1,1 A 18-19", 1));
    under_each_reading("0,0,0,0,0,0/12,0,0,0,0,0 B 18-18", "1B", [r, r, r]);
}

#[test]
fn readings_must_feed_limits_moves() {
    // Only 6B feeds: every reading agrees (must-reach asks the same here).
    let pos = "0,0,0,0,0,0/1,0,0,0,0,1 B 23-23";
    let six = Some(("1,0,0,0,0,0/1,0,0,0,0,0 A 23-23", 0));
    under_each_reading(pos, "6B", [six, six, six]);
    under_each_reading(pos, "1B", [None, None, None]);
}
