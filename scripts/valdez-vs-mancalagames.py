#!/usr/bin/env python3
"""Replays random games of Adji-Boto in the MancalaGames program and in
`adji replay --rules valdez`, and compares every position and every end
(docs/RULES.md, section 7.3).

Each game is played in the program (its `Mancala` class, the moves chosen at
random among the legal ones, the program's own passes), then the same moves
are replayed by adji. For every game the script checks that adji accepts
every move, that the boards and stores after each move agree, and that both
end at the same move with the same final split (the program's stores plus
the seeds it leaves on the board, each to its pit's owner: its early end
above 50 leaves them there). A game that parts is printed with the move
before the parting and whether that move's capture chain came all the way
round to the pit of the last seed (adji stops there; the program takes it).

    scripts/valdez-vs-mancalagames.py MANCALAGAMES_CHECKOUT ADJI_BINARY [GAMES=300]

MANCALAGAMES_CHECKOUT is a checkout of StoneShark/MancalaGames (its `src/`
and `GameProps/` are used; nothing of it is copied here). Game `i` uses
seed `i` for both the program's starting player and the moves.
"""

import json
import random
import subprocess
import sys


def main():
    root, adji = sys.argv[1], sys.argv[2]
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    sys.path.insert(0, f"{root}/src")
    import game_info as gi  # noqa: E402  (the program's modules)
    import man_config  # noqa: E402
    from game_logger import game_log  # noqa: E402

    game_log.active = False
    props = f"{root}/GameProps/Adji-boto.txt"
    plies = ends = parted = rounds = 0
    for seed in range(games):
        rng = random.Random(seed)
        random.seed(seed)
        g, _ = man_config.make_game(props)
        g.new_game()
        # adji's player 0 moves first and owns pits 5..9; the program's
        # starter owns locations 0..4 (False) or 5..9 (True), both sown
        # upward, so adji pit = location + 5 (mod 10) for a False starter.
        shift = 5 if not g.turn else 0
        starter = g.turn
        moves, boards = [], []
        while True:
            if g.test_pass():
                moves.append("pass")
                boards.append(None)
                continue
            allowed = [i for i, a in enumerate(g.get_allowable_holes()) if a]
            pos = rng.choice(allowed)
            loc = g.cts.xlate_pos_loc(not g.turn, pos)
            moves.append(str((loc + shift) % 10))
            wc = g.move(pos)
            board = [g.board[(p - shift) % 10] for p in range(10)]
            # Stores by adji's absolute side: 0 is the starter's.
            stores = [g.store[starter], g.store[not starter]]
            boards.append((board, stores))
            if wc and wc != gi.WinCond.REPEAT_TURN:
                break
        out = subprocess.run(
            [adji, "replay", "--game", "adjiboto", "--rules", "valdez",
             "--moves", " ".join(moves), "--json"],
            capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"game {seed}: adji refused the moves: {out.stderr.strip()}")
            parted += 1
            continue
        rep = json.loads(out.stdout)
        steps, result = rep["steps"], rep.get("result")
        same = True
        for i, (step, mg) in enumerate(zip(steps, boards)):
            if mg is None:
                continue
            after = parse(step["position"])
            if i < len(steps) - 1 and after != mg:
                same = False
                break
            if i < len(steps) - 1:
                plies += 1
        last = boards[-1]
        board, stores = last
        mg_final = [stores[0] + sum(board[5:]), stores[1] + sum(board[:5])]
        adji_final = None if result is None else [result["score"]["0"], result["score"]["1"]]
        before = parse(steps[-2]["position"])[0] if len(steps) > 1 else None
        came_round = last_pit_taken(before, moves[-1]) if before else False
        rounds += came_round
        if same and adji_final == mg_final:
            ends += 1
        else:
            parted += 1
            print(f"game {seed}: {len(moves)} moves, last {moves[-1]} from {before}; "
                  f"adji {adji_final}, program {mg_final}; "
                  f"chain came round to the last pit: {came_round}")
    print(f"{games} games: {plies} positions agree, {ends} ends agree, {parted} part; "
          f"{rounds} last moves whose chain came round to the pit of the last seed")


def parse(position):
    """adji's notation `TOP/BOTTOM MOVER TOPSTORE-BOTTOMSTORE PHASE` as the
    absolute board (pits 0..9) and the stores by side ([player 0, player 1])."""
    rows, _mover, stores = position.split()[:3]
    top, bottom = rows.split("/")
    board = [int(x) for x in top.split(",") + bottom.split(",")]
    top_store, bottom_store = (int(x) for x in stores.split("-"))
    return board, [bottom_store, top_store]


def last_pit_taken(board, move):
    """Whether sowing `move` on `board` (absolute pits) makes a capture chain
    that comes all the way round to the pit of the last seed holding 1, 3
    or 5 (adji stops there, the program takes it)."""
    if move == "pass":
        return False
    o = int(move)
    b = list(board)
    m = b[o] - 1
    b[o] = 1
    laps, r = divmod(m, 10)
    b = [x + laps for x in b]
    for d in range(1, r + 1):
        b[(o + d) % 10] += 1
    last = (o + r) % 10
    j = (last + 1) % 10
    while j != last and b[j] in (1, 3, 5):
        j = (j + 1) % 10
    return j == last and b[last] in (1, 3, 5)


if __name__ == "__main__":
    main()
