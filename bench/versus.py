"""Hard against an independent opponent (issue 39): bench/opponent_mcts.py, a plain UCT with a
solver and random rollouts at a fixed number of simulations a move, with rules of its own.

Run from the repository root (one process; put it under `nice` on a shared machine):

    .venv/bin/python bench/versus.py [--boards 3x3,4x4k3,5x5k4,6x6k4,7x7k5,8x8k5,8x8k4,ultimate]
                                     [--sims 1000,10000] [--games 2] [--empty]
                                     [--budget 0.05] [--ultimate-budget 0.5] [--seed 1]
                                     [--opponent native|python] [--jobs 1]

For every board and simulation count, hard plays --games seeded two-move openings as X and the
same openings as O (--empty adds a game from the empty board on each side). The openings of the
m,n,k boards are bench/strength.py's (on a drawn board, one a 1 s search proves won for X is
skipped); ultimate's are two uniformly random legal moves. Hard moves with the bot's own
functions (core.ai.hard_move, core.ultimate.ai.hard_move) at --budget / --ultimate-budget CPU
seconds (thread time, so a loaded machine delays it without weakening it; the bot's ultimate
clock is wall time). The table gives W/D/L from hard's view and the CPU time a move (median
and p99, time.process_time) of hard and of the opponent. After every move the opponent's rules
and core's must agree on whether the game is over and who won; a disagreement stops the bench.

The opponent searches in C by default (bench/opponent_native.py: the same search, compiled on
first use, 100,000 simulations in about 0.6 s on ultimate); `--opponent python` runs
opponent_mcts.py's own. `--jobs N` plays N games at a time in worker processes (each game's
moves and figures are the same as in one process: every game seeds its own random.Random).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from opponent_mcts import DRAW, Game, mcts_move, new_game
from opponent_native import native_move
from strength import FIRST_PLAYER_WINS, opening

from core.ai import hard_move
from core.board import Board, O, X
from core.rules import is_over, play, winner
from core.ultimate import ai as ultimate_ai
from core.ultimate import rules as ultimate

ULTIMATE = (9, 0)  # the (size, k) key of ultimate in --boards


OPPONENTS = {"native": native_move, "python": mcts_move}


@dataclass
class Result:
    board: tuple[int, int]
    sims: int
    hard_mark: str
    start: int
    opponent: str = "native"
    opening: tuple[int, ...] = ()  # fixed first moves (--opening), else the seeded opening
    result: str = ""
    hard_cpu: list[float] = field(default_factory=list)
    opponent_cpu: list[float] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)


def parse_board(text: str) -> tuple[int, int]:
    if text == "ultimate":
        return ULTIMATE
    size, _, rest = text.partition("x")
    n = int(size)
    k = int(rest.partition("k")[2] or 3) if "k" in rest else 3
    return n, k


def board_name(key: tuple[int, int]) -> str:
    return "ultimate" if key == ULTIMATE else f"{key[0]}x{key[0]} k{key[1]}"


def ultimate_opening(seed: int) -> list[int]:
    rng = random.Random(seed)
    board = ultimate.UltimateBoard.empty()
    moves = []
    for _ in range(2):
        move = rng.choice(ultimate.legal_moves(board))
        board = ultimate.play(board, move)
        moves.append(move)
    return moves


class Match:
    """One game's two views: core's board (for hard) and the opponent's own game."""

    def __init__(self, key: tuple[int, int]) -> None:
        self.ultimate = key == ULTIMATE
        self.core: Board | ultimate.UltimateBoard = (
            ultimate.UltimateBoard.empty() if self.ultimate else Board.empty(*key)
        )
        self.own: Game = new_game(key[0], key[1], self.ultimate)

    def play(self, move: int) -> None:
        if self.ultimate:
            assert isinstance(self.core, ultimate.UltimateBoard)
            self.core = ultimate.play(self.core, move)
        else:
            assert isinstance(self.core, Board)
            self.core = play(self.core, move)
        self.own.play(move)
        mark = self.winner()
        over = self.over()
        own = {0: None, 1: X, 2: O, DRAW: None}[self.own.result]
        if over != bool(self.own.result) or mark != own:
            raise AssertionError(f"the rules disagree after move {move}: core {mark} {over}")

    def over(self) -> bool:
        if isinstance(self.core, ultimate.UltimateBoard):
            return ultimate.is_over(self.core)
        return is_over(self.core)

    def winner(self) -> str | None:
        if isinstance(self.core, ultimate.UltimateBoard):
            return ultimate.winner(self.core)
        return winner(self.core)

    def turn(self) -> str:
        return X if self.own.to_move == 1 else O


def play_game(game: Result, budget: float, ultimate_budget: float) -> Result:
    key = game.board
    match = Match(key)
    rng = random.Random(f"{key} {game.sims} {game.hard_mark} {game.start}")  # a stable seed
    if game.opening:
        moves = list(game.opening)
    elif game.start:
        moves = ultimate_opening(game.start) if match.ultimate else opening(*key, game.start)
    else:
        moves = []
    for move in moves:
        match.play(move)
        game.moves.append(move)
    while not match.over():
        cpu = time.process_time()
        if match.turn() == game.hard_mark:
            if isinstance(match.core, ultimate.UltimateBoard):
                move = ultimate_ai.hard_move(
                    match.core, rng, time_budget=ultimate_budget, clock=time.thread_time
                )
            else:
                move = hard_move(match.core, rng, time_budget=budget)
            game.hard_cpu.append(time.process_time() - cpu)
        else:
            move = OPPONENTS[game.opponent](match.own, game.sims, rng)
            game.opponent_cpu.append(time.process_time() - cpu)
        match.play(move)
        game.moves.append(move)
    mark = match.winner()
    game.result = "draw" if mark is None else "win" if mark == game.hard_mark else "loss"
    return game


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.0f}/{percentile(values, 0.99) * 1e3:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default="3x3,4x4k3,5x5k4,6x6k4,7x7k5,8x8k5,8x8k4,ultimate")
    parser.add_argument("--sims", default="1000,10000")
    parser.add_argument("--games", type=int, default=2, help="openings a side")
    parser.add_argument("--empty", action="store_true", help="also a game from the empty board")
    parser.add_argument("--budget", type=float, default=0.05)
    parser.add_argument("--ultimate-budget", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default="native")
    parser.add_argument("--jobs", type=int, default=1, help="games played at a time")
    parser.add_argument(
        "--opening", default="", help="first moves of every game, e.g. 53,6 (--games: how many)"
    )
    args = parser.parse_args()
    keys = [parse_board(b) for b in args.boards.split(",")]
    sims = [int(s) for s in args.sims.split(",")]
    starts = ([0] if args.empty else []) + list(range(args.seed, args.seed + args.games))
    fixed = tuple(int(m) for m in args.opening.split(",")) if args.opening else ()
    played: list[Result] = []
    print(
        f"hard (budget {args.budget:g} s, ultimate {args.ultimate_budget:g} s) against "
        f"bench/opponent_mcts.py's search ({args.opponent}); "
        + (f"opening {args.opening}, games {starts}" if fixed else f"openings {starts}")
        + " (0: the empty board)"
    )
    print(
        f"{'board':>9} {'sims':>6} {'hard':>4} {'W/D/L':>7} {'hard ms p50/p99':>16} "
        f"{'mcts ms p50/p99':>16}"
    )
    groups = [
        [Result(key, count, mark, start, args.opponent, fixed) for start in starts]
        for key in keys
        for count in sims
        for mark in (X, O)
    ]
    budgets = (args.budget, args.ultimate_budget)
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        running = [[pool.submit(play_game, game, *budgets) for game in group] for group in groups]
        for group in running:
            here = [future.result() for future in group]
            for game in here:
                print(
                    f"  {board_name(game.board)} sims {game.sims} hard {game.hard_mark} "
                    f"start {game.start}: {game.result} {' '.join(map(str, game.moves))}",
                    file=sys.stderr,
                    flush=True,
                )
            played += here
            first = here[0]
            tally = Counter(g.result for g in here)
            hard_cpu = [t for g in here for t in g.hard_cpu] or [0.0]
            opponent_cpu = [t for g in here for t in g.opponent_cpu] or [0.0]
            print(
                f"{board_name(first.board):>9} {first.sims:>6} {first.hard_mark:>4} "
                f"{tally['win']}/{tally['draw']}/{tally['loss']:<3} {ms(hard_cpu):>16} "
                f"{ms(opponent_cpu):>16}",
                flush=True,
            )
    for g in played:
        won_board = g.board in FIRST_PLAYER_WINS
        if (g.result == "loss" and not (won_board and g.hard_mark == O)) or (
            won_board and g.hard_mark == X and g.start == 0 and g.result != "win"
        ):
            print(
                f"  {g.result}: {board_name(g.board)} sims {g.sims} hard {g.hard_mark} "
                f"start {g.start}: {' '.join(map(str, g.moves))}"
            )


if __name__ == "__main__":
    main()
