"""Benchmark: `hard` on 3×3 (the solved table against the naive minimax of seed 003), on the
bigger boards (the time-budgeted search against medium and easy), its strength (--strength:
against the attacker of bench/attacker.py and against itself at 10× the time) and, with
--ultimate, on ultimate tic-tac-toe (the Monte Carlo tree search against medium).

Run from the repository root:

    .venv/bin/python bench/ai.py [--sizes 4,5,6,7,8] [--games 5] [--budget 0.05]
    .venv/bin/python bench/ai.py --strength [--sizes 3,4,5,6,7,8] [--openings 2]
                                 [--budget 0.05] [--workers 2]
    .venv/bin/python bench/ai.py --ultimate [--ultimate-games 100] [--ultimate-budget 0.5]
                                 [--workers 2]
    .venv/bin/python bench/ai.py --ultimate-10x [--ultimate-games 5] [--ultimate-budget 0.5]
                                 [--ultimate-before PATH] [--ultimate-seed N]

Strength (--strength, instead of the other sections; see bench/strength.py): for every size in
--sizes and every k from 3 to the size, hard at --budget CPU seconds a move plays the attacker
and hard at 10× --budget, as X and as O, from the empty board and from --openings seeded
two-move openings. It prints W/D/L from hard's view and hard's CPU time per move (p50, p99,
max), then the moves of every game hard lost on a drawn board or failed to win as X on a won
one. At the defaults (2 openings, 0.05 s) it takes about 20 minutes on 2 cores.
--ultimate-10x plays ultimate hard at --ultimate-budget against itself at 10× that (CPU), or
with --ultimate-before PATH against the hard of another checkout at 10× (a worktree of an older
commit, `git worktree add /tmp/before <commit>`; its core is loaded as a renamed copy). Game g
is seeded --ultimate-seed + 2g (+1 for hard as O): another seed gives another sample of games.

3×3: it prints the time to solve the table from scratch, the time of one `hard` move over every
reachable position in play, and the time of the naive minimax (no memo, every free cell scored
by searching the whole tree below it) on the empty board and on 50 mid-game positions (2 to 5
marks, a fixed random sample), with the ratio naive/hard. Timings use time.perf_counter_ns.
This part takes a few seconds.

Bigger boards: for each size in --sizes (default k: 4×4 → 4, 5×5 → 4, 6×6..8×8 → 5), hard plays
--games games against medium and --games against easy, as X and as O each (4 × games games),
with --budget seconds per move. It prints the budget, the time of every hard move (p50, p99,
max; moves answered without search, a win or block in one, count too), the mean depth the
search completed, and wins/draws/losses from hard's point of view. Games are seeded, so a run
is repeatable up to timing. The defaults (5 games, 0.05 s) take about 16 s in all (2 cores);
the bot's own budget (AI_TIME_BUDGET_SECONDS, 0.5 s) with 100 games takes hours.

Ultimate (--ultimate, instead of the sections above): hard (core.ultimate.ai) plays
--ultimate-games games against medium as X and as many as O, with --ultimate-budget seconds per
move, the games spread over --workers processes. It prints wins/draws/losses from hard's point
of view for each side, the wall and CPU time of every hard move (p50, p99, max, against the
budget; moves answered without search, a game win or the only safe move, count too) and the
iterations per searched move. A wall time over the budget with the CPU time within it is time
the worker spent waiting for a core, so the load average is printed too. Games are seeded, so
a run is repeatable up to timing. The defaults (100 games a side at the bot's 0.5 s, 2 workers)
take about 15 minutes on 2 cores, nearly all of it hard's moves (about 9 s a game).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.ai import STRATEGIES, hard_move
from core.board import Board, O, X, default_k
from core.notation import format_cells
from core.rules import is_over, play, turn, winner
from core.search.engine import DEFAULT_BUDGET as BOT_BUDGET
from core.search.engine import search
from core.solver import position_score, solved_table
from core.ultimate import ai as ultimate_ai
from core.ultimate import rules as ultimate

SOLVE_RUNS = 5  # fresh solves of the table
HARD_REPEATS = 9  # timings of each position's hard move; the median is kept
NAIVE_EMPTY_RUNS = 3  # naive searches of the whole tree from the empty board
NAIVE_SAMPLE = 50  # mid-game positions for the naive minimax
MID_GAME_MARKS = (2, 3, 4, 5)  # marks on the board of a mid-game position
NAIVE_SAMPLE_REPEATS = 3  # timings of each; the best is kept
SEED = 3
# Defaults that finish in well under a minute: 4 × 5 games on each of 5 sizes at 0.05 s a move.
DEFAULT_GAMES = 5
DEFAULT_BUDGET = 0.05


# --- the naive minimax of seed 003 ---------------------------------------------------------------
# A 9-element list of 'x', 'o' and ' '; X maximises, O minimises; +1 X wins, -1 O wins, 0 draw.

WINS = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def didwin(board: list[str]) -> int | None:
    for a, b, c in WINS:
        if board[a] == board[b] == board[c] == "x":
            return 1
    for a, b, c in WINS:
        if board[a] == board[b] == board[c] == "o":
            return -1
    if " " not in board:
        return 0
    return None


def minimax(board: list[str], letter_x: bool) -> int:
    """The value of `board` with X (letter_x) or O to move, searching every continuation."""
    state = didwin(board)
    if state is not None:
        return state
    if letter_x:
        best_val = -100
        for n in range(9):
            if board[n] == " ":
                board[n] = "x"
                best_val = max(best_val, minimax(board, False))
                board[n] = " "
        return best_val
    best_val = 100
    for n in range(9):
        if board[n] == " ":
            board[n] = "o"
            best_val = min(best_val, minimax(board, True))
            board[n] = " "
    return best_val


def naive_move(board: list[str]) -> int:
    """Score every free cell with a full minimax below it; the first best cell, as in seed 003."""
    letter_x = board.count("x") == board.count("o")
    mark = "x" if letter_x else "o"
    score_dict = {}
    for n in range(9):
        if board[n] == " ":
            board[n] = mark
            score_dict[n] = minimax(board, not letter_x)
            board[n] = " "
    pick = max if letter_x else min
    return pick(score_dict, key=score_dict.__getitem__)


def to_naive(board: Board) -> list[str]:
    return [c.lower() for c in board.cells]


# --- timing helpers -------------------------------------------------------------------------------


def elapsed_ns(call: Callable[[], object]) -> int:
    start = time.perf_counter_ns()
    call()
    return time.perf_counter_ns() - start


def sign(n: int) -> int:
    return (n > 0) - (n < 0)


def fmt(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.0f} ns"


def bench_3x3() -> None:

    # 1. Solving the table from scratch.
    solve_times = []
    for _ in range(SOLVE_RUNS):
        solved_table.cache_clear()
        solve_times.append(elapsed_ns(solved_table))
    table = solved_table()
    print(
        f"solve table ({len(table)} positions, fresh): "
        f"best {fmt(min(solve_times))}, median {fmt(statistics.median(solve_times))} "
        f"over {SOLVE_RUNS} runs"
    )

    # 2. One hard move on every reachable position in play (the table is warm).
    in_play = [Board(cells) for cells in sorted(table) if not is_over(Board(cells))]
    rng = random.Random(SEED)
    hard_ns: dict[tuple[str, ...], float] = {}
    for board in in_play:
        runs = [elapsed_ns(lambda b=board: hard_move(b, rng)) for _ in range(HARD_REPEATS)]
        hard_ns[board.cells] = statistics.median(runs)
    per_position = list(hard_ns.values())
    worst_cells = max(hard_ns, key=hard_ns.__getitem__)
    print(
        f"hard move, {len(in_play)} positions (median of {HARD_REPEATS} each): "
        f"median {fmt(statistics.median(per_position))}, worst {fmt(max(per_position))} "
        f"({format_cells(Board(worst_cells))})"
    )

    # 3. The naive minimax on the empty board.
    empty = Board.empty()
    naive_empty = []
    for _ in range(NAIVE_EMPTY_RUNS):
        cells = to_naive(empty)
        naive_empty.append(elapsed_ns(lambda c=cells: naive_move(c)))
    hard_empty = hard_ns[empty.cells]
    print(
        f"naive minimax, empty board: best {fmt(min(naive_empty))} of {NAIVE_EMPTY_RUNS} runs; "
        f"hard {fmt(hard_empty)}; naive/hard {min(naive_empty) / hard_empty:,.0f}x"
    )

    # 4. The naive minimax on mid-game positions: an equal share with 2, 3, 4 and 5 marks.
    sample_rng = random.Random(SEED)
    by_marks: dict[int, list[Board]] = {}
    for marks in MID_GAME_MARKS:
        share = NAIVE_SAMPLE // len(MID_GAME_MARKS) + (
            marks - MID_GAME_MARKS[0] < NAIVE_SAMPLE % len(MID_GAME_MARKS)
        )
        pool = [b for b in in_play if 9 - len(b.free_cells()) == marks]
        by_marks[marks] = sample_rng.sample(pool, share)
    all_naive, all_ratios = [], []
    print(
        f"naive minimax, {NAIVE_SAMPLE} mid-game positions "
        f"(best of {NAIVE_SAMPLE_REPEATS} each, fixed seed {SEED}):"
    )
    for marks, boards in by_marks.items():
        naive_ns, ratios = [], []
        for board in boards:
            cells = to_naive(board)
            move = naive_move(cells)
            # Sanity check on both sides: the naive move keeps the game's value (win/draw/loss).
            assert sign(-position_score(play(board, move))) == sign(position_score(board))
            best = min(
                elapsed_ns(lambda c=cells: naive_move(c)) for _ in range(NAIVE_SAMPLE_REPEATS)
            )
            naive_ns.append(best)
            ratios.append(best / hard_ns[board.cells])
        all_naive += naive_ns
        all_ratios += ratios
        print(
            f"  {marks} marks, {len(boards):2} positions: "
            f"naive median {fmt(statistics.median(naive_ns))}, worst {fmt(max(naive_ns))}; "
            f"naive/hard median {statistics.median(ratios):,.0f}x"
        )
    print(
        f"  all {len(all_naive)} positions: naive median {fmt(statistics.median(all_naive))}, "
        f"worst {fmt(max(all_naive))}"
    )
    print(
        f"ratio naive/hard, mid-game: median {statistics.median(all_ratios):,.0f}x, "
        f"min {min(all_ratios):,.0f}x, max {max(all_ratios):,.0f}x"
    )


# --- bigger boards: the search against medium and easy -----------------------------------------

OPPONENTS = ("medium", "easy")


def percentile(values: list[float], q: float) -> float:
    """The q-quantile by the nearest rank (q=0.5 is the median, 0.99 the 99th percentile)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def play_game(
    size: int,
    opponent: str,
    hard_mark: str,
    seed: int,
    budget: float,
    times: list[float],
    depths: list[int],
) -> str:
    """One game of hard against `opponent`; 'win', 'draw' or 'loss' from hard's view.

    Hard's moves go through core.search.engine.search, which core.ai.hard_move calls on every board
    but 3×3, to see the depth each search completed.
    """
    rng = random.Random(seed)
    board = Board.empty(size, default_k(size))
    move_of = STRATEGIES[opponent]
    while not is_over(board):
        if turn(board) == hard_mark:
            start = time.perf_counter()
            info = search(board, rng, time_budget=budget)
            times.append(time.perf_counter() - start)
            if info.depth:
                depths.append(info.depth)
            board = play(board, info.move)
        else:
            board = play(board, move_of(board, rng))
    mark = winner(board)
    return "draw" if mark is None else "win" if mark == hard_mark else "loss"


def bench_big(sizes: list[int], games: int, budget: float) -> None:
    print()
    print(
        f"bigger boards: hard with a budget of {budget:g} s per move against medium and easy, "
        f"{games} games per cell (W/D/L from hard's view)"
    )
    print(
        "moves: hard moves timed (wins and blocks in one included); p50/p99/max: wall time per "
        "hard move; depth: mean depth the searched moves completed"
    )
    header = (
        f"{'board':>7} {'moves':>6} {'p50':>9} {'p99':>9} {'max':>9} {'depth':>5}  "
        f"{'medium X':>12} {'medium O':>12} {'easy X':>12} {'easy O':>12}"
    )
    print(header)
    losses = total = 0
    for size in sizes:
        times: list[float] = []
        depths: list[int] = []
        cells = []
        for opponent in OPPONENTS:
            for hard_mark in (X, O):
                results: Counter[str] = Counter()
                for game in range(games):
                    seed = SEED * 1_000_003 + size * 10_007 + game * 2 + (hard_mark == O)
                    seed += 500_009 * OPPONENTS.index(opponent)
                    results[play_game(size, opponent, hard_mark, seed, budget, times, depths)] += 1
                losses += results["loss"]
                total += games
                cells.append(f"{results['win']}/{results['draw']}/{results['loss']}")
        depth = f"{statistics.mean(depths):.1f}" if depths else "-"
        print(
            f"{f'{size}x{size} k{default_k(size)}':>7} {len(times):>6} "
            f"{fmt(percentile(times, 0.5) * 1e9):>9} {fmt(percentile(times, 0.99) * 1e9):>9} "
            f"{fmt(max(times) * 1e9):>9} {depth:>5}  " + " ".join(f"{c:>12}" for c in cells)
        )
    print(f"hard lost {losses} of {total} games against medium and easy")


# --- ultimate tic-tac-toe: the tree search against medium ---------------------------------------

ULTIMATE_GAMES = 100  # games per side
ULTIMATE_BUDGET = BOT_BUDGET  # the bot's own, 0.5 s
WORKERS = 2


@dataclass
class UltimateGame:
    """One game of hard against medium, as a worker hands it back."""

    hard_mark: str
    result: str  # 'win', 'draw' or 'loss' from hard's view
    times: list[float]  # wall time of each hard move
    cpu_times: list[float]  # the worker's CPU time during each hard move
    iterations: list[int]  # of each searched hard move


def play_ultimate(task: tuple[int, str, float]) -> UltimateGame:
    """One seeded game of hard against medium (runs in a worker)."""
    seed, hard_mark, budget = task
    rng = random.Random(seed)
    board = ultimate.UltimateBoard.empty()
    game = UltimateGame(hard_mark, "", [], [], [])
    while not ultimate.is_over(board):
        if ultimate.turn(board) == hard_mark:
            start, cpu_start = time.perf_counter(), time.process_time()
            info = ultimate_ai.search(board, rng, time_budget=budget)
            game.times.append(time.perf_counter() - start)
            game.cpu_times.append(time.process_time() - cpu_start)
            if info.iterations:
                game.iterations.append(info.iterations)
            move = info.move
        else:
            move = ultimate_ai.medium_move(board, rng)
        board = ultimate.play(board, move)
    mark = ultimate.winner(board)
    game.result = "draw" if mark is None else "win" if mark == hard_mark else "loss"
    return game


def bench_ultimate(games: int, budget: float, workers: int) -> None:
    tasks = [
        (SEED * 1_000_003 + 7_000_001 + game * 2 + (mark == O), mark, budget)
        for game in range(games)
        for mark in (X, O)
    ]
    print(
        f"ultimate: hard with a budget of {budget:g} s per move against medium, {games} games "
        f"as X and {games} as O, over {workers} worker processes"
    )
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started = time.perf_counter()
    played: list[UltimateGame] = []
    with Pool(workers) as pool:
        for game in pool.imap_unordered(play_ultimate, tasks):
            played.append(game)
            if len(played) % 10 == 0:
                elapsed = time.perf_counter() - started
                print(f"  {len(played)}/{len(tasks)} games, {elapsed:.0f} s", file=sys.stderr)
    print_ultimate(played, budget)
    print(
        f"wall time {time.perf_counter() - started:.0f} s; load average after: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def print_ultimate(played: list[UltimateGame], budget: float) -> None:
    print(f"{'hard as':>7} {'games':>6} {'wins':>5} {'draws':>6} {'losses':>7}")
    for mark in (X, O):
        counts = Counter(game.result for game in played if game.hard_mark == mark)
        print(
            f"{mark:>7} {counts.total():>6} {counts['win']:>5} {counts['draw']:>6} "
            f"{counts['loss']:>7}"
        )
    times = [t for game in played for t in game.times]
    cpu = [t for game in played for t in game.cpu_times]
    iterations = [n for game in played for n in game.iterations]
    print(f"hard's moves: {len(times)} ({len(iterations)} searched), budget {fmt(budget * 1e9)}")
    for name, values in (("wall time", times), ("CPU time", cpu)):
        print(
            f"  {name:>9}: p50 {fmt(percentile(values, 0.5) * 1e9)}, "
            f"p99 {fmt(percentile(values, 0.99) * 1e9)}, max {fmt(max(values) * 1e9)}; "
            f"{sum(t > budget for t in values)} over the budget"
        )
    print("  (wall time over the budget with CPU time within it: the worker waited for a core)")
    if iterations:
        print(
            f"iterations per searched move: mean {statistics.mean(iterations):,.0f}, "
            f"p50 {percentile(iterations, 0.5):,}, min {min(iterations):,}, "
            f"max {max(iterations):,}"
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes",
        default="4,5,6,7,8",
        help="board sizes for the bigger-board table, comma-separated (default 4,5,6,7,8)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help=f"games per size, opponent and side (default {DEFAULT_GAMES})",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        help=f"hard's time budget per move in seconds (default {DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--ultimate",
        action="store_true",
        help="run the ultimate tic-tac-toe section only (hard against medium)",
    )
    parser.add_argument(
        "--ultimate-games",
        type=int,
        default=ULTIMATE_GAMES,
        help=f"ultimate games per side (default {ULTIMATE_GAMES})",
    )
    parser.add_argument(
        "--ultimate-budget",
        type=float,
        default=ULTIMATE_BUDGET,
        help=f"hard's time budget per ultimate move in seconds (default {ULTIMATE_BUDGET})",
    )
    parser.add_argument(
        "--strength",
        action="store_true",
        help="run the strength section only: hard against the attacker and hard at 10x time",
    )
    parser.add_argument(
        "--ultimate-10x",
        action="store_true",
        help="ultimate hard at --ultimate-budget against itself at 10x (--ultimate-games a side)",
    )
    parser.add_argument(
        "--ultimate-before",
        metavar="PATH",
        help="with --ultimate-10x: the 10x side is the hard of this checkout (an older commit's"
        " worktree, say) instead of today's",
    )
    parser.add_argument(
        "--ultimate-seed",
        type=int,
        default=9_000_001,
        help="with --ultimate-10x: the first game's seed (default 9000001)",
    )
    parser.add_argument(
        "--openings",
        type=int,
        default=2,
        help="seeded two-move openings per board in the strength section (default 2)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=WORKERS,
        help=f"processes playing the ultimate games (default {WORKERS})",
    )
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    except ValueError:
        parser.error("--sizes wants numbers such as 4,5,6")
    if any(not (3 if args.strength else 4) <= size <= 8 for size in args.sizes):
        parser.error("--sizes are from 4 to 8 (3×3 has its own section)")
    if args.games < 1 or args.budget < 0:
        parser.error("--games must be positive and --budget not negative")
    if args.ultimate_games < 1 or args.ultimate_budget < 0 or args.workers < 1:
        parser.error(
            "--ultimate-games and --workers must be positive, --ultimate-budget not negative"
        )
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print(f"Python {sys.version.split()[0]}")
    if args.strength:
        from strength import bench_strength

        bench_strength(args.sizes, args.openings, args.budget, args.workers)
        return
    if args.ultimate_10x:
        from strength import bench_ultimate_10x

        bench_ultimate_10x(
            args.ultimate_games,
            args.ultimate_budget,
            args.workers,
            args.ultimate_before,
            args.ultimate_seed,
        )
        return
    if args.ultimate:
        bench_ultimate(args.ultimate_games, args.ultimate_budget, args.workers)
        return
    bench_3x3()
    bench_big(args.sizes, args.games, args.budget)


if __name__ == "__main__":
    main()
