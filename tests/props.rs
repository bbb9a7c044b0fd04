//! Property tests over reachable and arbitrary positions of both games.

mod common;

use adji::game::{Game, Packed, Position, State, MAX_PITS};
use adji::notation::{format_state, parse_move, parse_state, Stores};
use adji::{AdjiBoto, Adjito};
use proptest::prelude::*;

/// A reachable state (random playout) or an arbitrary main-phase board.
fn states<G: Game>() -> impl Strategy<Value = State> {
    let reachable =
        prop::collection::vec(any::<u8>(), 0..80).prop_map(|c| common::playout::<G>(&c));
    let arbitrary = (
        prop::collection::vec(0u32..1000, G::PITS),
        0u8..2,
        0u32..=G::TOTAL,
        any::<u16>(),
    )
        .prop_map(|(weights, side, level, split)| {
            // Spread `level` seeds over the pits in proportion to the weights.
            let sum: u32 = weights.iter().sum::<u32>().max(1);
            let mut pits = [0u8; MAX_PITS];
            let mut used = 0;
            for i in 0..G::PITS {
                let x = level * weights[i] / sum;
                pits[i] = x as u8;
                used += x;
            }
            pits[0] += (level - used) as u8;
            let rest = (G::TOTAL - level) as u16;
            let top = split % (rest + 1);
            State {
                pos: Position {
                    pits,
                    side,
                    opening: 0,
                },
                stores: [rest - top, top],
            }
        });
    prop_oneof![reachable, arbitrary]
}

fn conserved<G: Game>(st: &State) -> Result<(), TestCaseError> {
    let n = st.pos.level();
    for mv in G::legal_moves(&st.pos).iter() {
        let p = G::try_play(&st.pos, mv).expect("generated move must be legal");
        prop_assert_eq!(p.pos.level() + p.captured as u32, n);
        prop_assert_eq!(p.pos.side, st.pos.side ^ 1);
        // Key after the move equals the key recomputed from scratch.
        let mut after = *st;
        after.pos = p.pos;
        after.stores[st.pos.side as usize] += p.captured as u16;
        let reparsed = parse_state::<G>(&format_state::<G>(&after), Stores::Required).unwrap();
        prop_assert_eq!(reparsed.pos.key(), p.pos.key());
        prop_assert_eq!(Packed::unpack(p.pos.pack()), p.pos);
        // The move's name parses back to the move.
        let name = adji::notation::format_move::<G>(&st.pos, mv);
        prop_assert_eq!(parse_move::<G>(&st.pos, &name).unwrap(), mv);
    }
    Ok(())
}

fn round_trip<G: Game>(st: &State) -> Result<(), TestCaseError> {
    let s = format_state::<G>(st);
    let back = parse_state::<G>(&s, Stores::Required)
        .map_err(|e| TestCaseError::fail(format!("{s}: {e}")))?;
    prop_assert_eq!(back, *st);
    Ok(())
}

fn predecessors_agree<G: Game>(st: &State) -> Result<(), TestCaseError> {
    if st.pos.in_opening() {
        return Ok(());
    }
    for mv in G::legal_moves(&st.pos).iter() {
        let p = G::play_unchecked(&st.pos, mv);
        if p.captured == 0 {
            let mut found = 0;
            G::for_each_quiet_predecessor(&p.pos, |q| found += (q == st.pos) as u32);
            prop_assert!(found >= 1, "predecessor not generated");
        }
    }
    // Every generated predecessor really leads here with a quiet move.
    let mut bad = false;
    G::for_each_quiet_predecessor(&st.pos, |q| {
        let ok = G::legal_moves(&q).iter().any(|m| {
            let p = G::play_unchecked(&q, m);
            p.captured == 0 && p.pos == st.pos
        });
        bad |= !ok;
    });
    prop_assert!(!bad);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn adjito_moves_conserve_seeds(st in states::<Adjito>()) { conserved::<Adjito>(&st)?; }
    #[test]
    fn adjiboto_moves_conserve_seeds(st in states::<AdjiBoto>()) { conserved::<AdjiBoto>(&st)?; }
    #[test]
    fn adjito_notation_round_trips(st in states::<Adjito>()) { round_trip::<Adjito>(&st)?; }
    #[test]
    fn adjiboto_notation_round_trips(st in states::<AdjiBoto>()) { round_trip::<AdjiBoto>(&st)?; }
    #[test]
    fn adjito_predecessors(st in states::<Adjito>()) { predecessors_agree::<Adjito>(&st)?; }
    #[test]
    fn adjiboto_predecessors(st in states::<AdjiBoto>()) { predecessors_agree::<AdjiBoto>(&st)?; }

    #[test]
    fn parser_never_panics_on_any_string(s in any::<String>()) {
        let _ = parse_state::<Adjito>(&s, Stores::Required);
        let _ = parse_state::<AdjiBoto>(&s, Stores::Optional);
    }

    #[test]
    fn parser_never_panics_on_near_misses(
        s in "[0-9,]{0,30}/[0-9,]{0,30} [AB01x]{0,2} [0-9-]{0,7}( (main|opening:[0-9,]{0,25}))?"
    ) {
        for mode in [Stores::Required, Stores::Optional] {
            if let Ok(st) = parse_state::<Adjito>(&s, mode) { round_trip::<Adjito>(&st)?; }
            if let Ok(st) = parse_state::<AdjiBoto>(&s, mode) { round_trip::<AdjiBoto>(&st)?; }
        }
    }

    #[test]
    fn move_parser_never_panics(s in any::<String>()) {
        let _ = parse_move::<Adjito>(&Adjito::start(), &s);
        let _ = parse_move::<AdjiBoto>(&AdjiBoto::start(), &s);
    }
}

#[test]
fn malformed_positions_name_the_field() {
    let cases: &[(&str, &str)] = &[
        ("4,4,4,4,4/4,4,4,4,4,4 B 0-0", "top row"),
        ("4,4,4,4,4,4/4,4,4,4,4,x B 0-0", "bottom row"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 C 0-0", "mover"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 B 1-0", "stores"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 B", "stores"),
        ("4,4,4,4,4,4 B 0-0", "board"),
        ("", "position"),
    ];
    for (s, field) in cases {
        let e = parse_state::<Adjito>(s, Stores::Required).unwrap_err();
        assert_eq!(e.field, *field, "{s}: {e}");
    }
    let boto: &[(&str, &str)] = &[
        ("10,10,10,10,10/10,10,10,10,10 0 0-0", "phase"),
        ("10,10,10,10,10/10,10,10,10,10 0 0-0 opening:5", "phase"),
        ("10,10,10,10,10/10,10,10,10,10 0 0-0 opening:5,5", "phase"),
        ("10,10,10,10,10/10,10,10,10,10 0 0-0 opening:12", "phase"),
        ("10,10,10,10,10/10,10,10,10,10 0 0-0 middle", "phase"),
        ("10,10,10,10,10/10,10,10,10,10 2 0-0 main", "mover"),
    ];
    for (s, field) in boto {
        let e = parse_state::<AdjiBoto>(s, Stores::Required).unwrap_err();
        assert_eq!(e.field, *field, "{s}: {e}");
    }
    // Player 1 to move has played one pit more than player 0: wrong side.
    assert!(parse_state::<AdjiBoto>(
        "10,10,10,10,10/10,10,10,10,10 1 0-0 opening:1",
        Stores::Required
    )
    .is_err());
    assert!(parse_state::<AdjiBoto>(
        "10,10,10,10,10/10,10,10,10,10 1 0-0 opening:5",
        Stores::Required
    )
    .is_ok());
}

#[test]
fn move_of_the_wrong_player_is_rejected() {
    let e = parse_move::<Adjito>(&Adjito::start(), "3A").unwrap_err();
    assert!(e.message.contains("belongs to player A"), "{e}");
}

/// A range `a..=b` (ordered) and a value inside it.
fn range_and_point() -> impl Strategy<Value = (adji::value::Range, i32)> {
    (-60i32..60, 0i32..40, 0i32..40).prop_map(|(a, len, off)| {
        let off = off.min(len);
        (
            adji::value::Range {
                lower: a,
                upper: a + len,
            },
            a + off,
        )
    })
}

proptest! {
    /// The value algebra on bounds contains the algebra on the exact values
    /// inside them: a capture, a quiet move (for any w, ±∞ included) and a
    /// join of two moves.
    #[test]
    fn value_algebra_bounds_contain_points(
        (lo_r, lo) in range_and_point(),
        (hi_r, hi) in range_and_point(),
        (other_r, other) in range_and_point(),
        w in prop::sample::select(vec![-1000, -7, 0, 3, 1000]),
        captured in 0u8..30,
    ) {
        use adji::value::{capture_value, quiet_value, Bounds, Contribution, Range};
        prop_assume!(lo <= hi);
        let contains = |r: Range, v: i32| r.lower <= v && v <= r.upper;
        let cap = Contribution::capture(captured, other_r);
        prop_assert!(contains(cap.value, capture_value(captured, other)));
        prop_assert_eq!(cap.lo, cap.value);
        let q = Contribution::quiet(w, lo_r, hi_r);
        let exact = quiet_value(w, Bounds { lo, hi });
        prop_assert!(contains(q.value, exact), "{:?} does not hold {}", q.value, exact);
        prop_assert!(contains(q.lo, -hi) && contains(q.hi, -lo));
        prop_assert_eq!(exact, w.clamp(-hi, -lo));
        let j = q.join(cap);
        prop_assert!(contains(j.value, exact.max(capture_value(captured, other))));
        prop_assert_eq!(Contribution::NONE.join(q), q);
    }
}
