"""The strength section of bench/ai.py: hard against the attacker (bench/attacker.py) and against
hard given 10× its time, on every board the bot offers, both sides, from the empty board and
from seeded openings of two random moves.

An opening is one random move for X within the central square of side size − 2 and one random
move for O next to it, in that square too. On 3×3 the solved table keeps only drawn openings;
on the other drawn boards an opening is dropped when a 1 s search proves it won for X (its
mate scores are exact), so an opening kept is not known to be lost, though not proved drawn.
On the won boards X's central first move is assumed to keep the win (every game hard lost or
failed to win is printed with its moves, for a check).
Games stop as a draw once no line can be completed by either side (`game_is_dead`), which
shortens the long boards' dead endings without changing any result. Hard's time is CPU time
(time.process_time) of its own moves only.
"""

from __future__ import annotations

import importlib
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

from attacker import attacker_move, game_is_dead

from core.ai import hard_move
from core.board import Board, O, X
from core.rules import play, turn, winner
from core.search.engine import MATE, search
from core.solver import position_score

OPPONENTS = ("attacker", "hard10x")
# What is known (issue 27): k=3 on 4×4+ and k=4 on 6×6..8×8 are first-player wins, the rest
# (k=4 on 4×4 and 5×5, k ≥ 5 up to 8×8, and 3×3) are draws.
FIRST_PLAYER_WINS = {(n, 3) for n in range(4, 9)} | {(n, 4) for n in range(6, 9)}


def boards(sizes: list[int]) -> list[tuple[int, int]]:
    """Every (size, k) the bot offers among `sizes`."""
    return [(n, k) for n in sizes for k in range(3, n + 1)]


def opening(size: int, k: int, seed: int) -> list[int]:
    """Two seeded random moves (an empty list for seed 0): X anywhere in the central square,
    O on a cell of it next to X's; on a drawn board only an opening not proven lost for O."""
    if seed == 0:
        return []
    rng = random.Random(seed)
    margin = 1 if size > 3 else 0
    centre = [
        r * size + c for r in range(margin, size - margin) for c in range(margin, size - margin)
    ]
    while True:
        first = rng.choice(centre)
        row, col = divmod(first, size)
        near = [
            r * size + c
            for r in range(row - 1, row + 2)
            for c in range(col - 1, col + 2)
            if (r, c) != (row, col) and r * size + c in centre
        ]
        moves = [first, rng.choice(near)]
        board = play(play(Board.empty(size, k), moves[0]), moves[1])
        if size == 3:
            if position_score(board) == 0:
                return moves
        elif (size, k) in FIRST_PLAYER_WINS or not _proven_x_win(board):
            return moves


def _proven_x_win(board: Board) -> bool:
    """Does a 1 s search prove a win for X (to move)? Its mate scores are exact."""
    info = search(board, random.Random(0), time_budget=1.0, clock=time.process_time)
    return info.score is not None and info.score >= MATE


@dataclass
class Game:
    size: int
    k: int
    opponent: str
    hard_mark: str
    start: int  # 0: the empty board, else the opening's seed
    result: str = ""
    cpu: list[float] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)


def play_strength(task: tuple[int, int, str, str, int, float]) -> Game:
    """One game (runs in a worker)."""
    size, k, opponent, hard_mark, start, budget = task
    game = Game(size, k, opponent, hard_mark, start)
    rng = random.Random(hash((size, k, opponent, hard_mark, start)) & 0xFFFF_FFFF)
    board = Board.empty(size, k)
    for cell in opening(size, k, start):
        board = play(board, cell)
        game.moves.append(cell)
    while not game_is_dead(board):
        if turn(board) == hard_mark:
            cpu = time.process_time()
            move = hard_move(board, rng, time_budget=budget, clock=time.process_time)
            game.cpu.append(time.process_time() - cpu)
        elif opponent == "attacker":
            move = attacker_move(board, rng, time_budget=10 * budget)
        else:
            move = hard_move(board, rng, time_budget=10 * budget, clock=time.process_time)
        board = play(board, move)
        game.moves.append(move)
    mark = winner(board)
    game.result = "draw" if mark is None else "win" if mark == hard_mark else "loss"
    return game


def bench_strength(sizes: list[int], openings: int, budget: float, workers: int) -> list[Game]:
    """Play every game and print the table; returns the games."""
    from ai import fmt, percentile

    starts = [0, *range(1, openings + 1)]
    tasks = [
        (n, k, opponent, mark, start, budget)
        for n, k in boards(sizes)
        for opponent in OPPONENTS
        for mark in (X, O)
        for start in starts
    ]
    print(
        f"strength: hard at {budget:g} s CPU a move against the attacker and against hard at "
        f"{10 * budget:g} s, from the empty board and {openings} two-move openings; W/D/L from "
        "hard's view; value: the board's known value (X wins or draw)"
    )
    played = []
    with Pool(workers) as pool:
        for g in pool.imap_unordered(play_strength, tasks):
            played.append(g)
            cpu = max(g.cpu or [0.0])
            print(
                f"  {len(played)}/{len(tasks)}: {g.size}x{g.size} k{g.k} hard {g.hard_mark} vs "
                f"{g.opponent} start {g.start}: {g.result} (max {cpu * 1e3:.1f} ms)",
                file=sys.stderr,
            )
    print(
        f"{'board':>8} {'value':>6} {'attacker X':>11} {'attacker O':>11} {'10x X':>8} "
        f"{'10x O':>8} {'p50':>9} {'p99':>9} {'max':>9}"
    )
    for n, k in boards(sizes):
        here = [g for g in played if (g.size, g.k) == (n, k)]
        cells = []
        for opponent in OPPONENTS:
            for mark in (X, O):
                count = Counter(
                    g.result for g in here if g.opponent == opponent and g.hard_mark == mark
                )
                cells.append(f"{count['win']}/{count['draw']}/{count['loss']}")
        cpu = [t for g in here for t in g.cpu] or [0.0]
        value = "X wins" if (n, k) in FIRST_PLAYER_WINS else "draw"
        print(
            f"{f'{n}x{n} k{k}':>8} {value:>6} {cells[0]:>11} {cells[1]:>11} {cells[2]:>8} "
            f"{cells[3]:>8} {fmt(percentile(cpu, 0.5) * 1e9):>9} "
            f"{fmt(percentile(cpu, 0.99) * 1e9):>9} {fmt(max(cpu) * 1e9):>9}"
        )
    _print_failures(played)
    return played


def _print_failures(played: list[Game]) -> None:
    """Every game hard lost, or drew on a won board as X: its moves, for replay."""
    for g in played:
        won_board = (g.size, g.k) in FIRST_PLAYER_WINS
        lost = g.result == "loss" and not (won_board and g.hard_mark == O)
        if lost or (won_board and g.hard_mark == X and g.result != "win"):
            print(
                f"  {g.result}: {g.size}x{g.size} k{g.k} hard {g.hard_mark} vs {g.opponent} "
                f"start {g.start}: {' '.join(map(str, g.moves))}"
            )


# --- ultimate: hard at a budget against a search at 10× it ---------------------------------------


def renamed_core(tree: str) -> str:
    """A copy of `tree`'s core package as `core_before` (its imports rewritten), in a new
    temporary folder to put on sys.path: an older search to play against today's."""
    folder = Path(tempfile.mkdtemp(prefix="core_before_"))
    shutil.copytree(Path(tree) / "core", folder / "core_before")
    for module in (folder / "core_before").glob("*.py"):
        text = module.read_text()
        text = re.sub(r"^from core([ .])", r"from core_before\1", text, flags=re.M)
        module.write_text(text)
    return str(folder)


def play_ultimate_10x(task: tuple[int, str, float, str | None]) -> str:
    """One seeded ultimate game, hard (budget) against hard (10× budget, from `before` if
    given: a folder made by renamed_core): hard's result."""
    from core.ultimate import ai as ultimate_ai
    from core.ultimate import rules as ultimate

    seed, hard_mark, budget, before = task
    opponent = ultimate_ai
    if before:
        if before not in sys.path:  # a worker plays many games
            sys.path.insert(0, before)
        opponent = importlib.import_module("core_before.ultimate_ai")
    rng = random.Random(seed)
    board = ultimate.UltimateBoard.empty()
    while not ultimate.is_over(board):
        mine = ultimate.turn(board) == hard_mark
        ai, think = (ultimate_ai, budget) if mine else (opponent, 10 * budget)
        move = ai.hard_move(board, rng, time_budget=think, clock=time.process_time)
        board = ultimate.play(board, move)
    mark = ultimate.winner(board)
    return "draw" if mark is None else "win" if mark == hard_mark else "loss"


def bench_ultimate_10x(
    games: int, budget: float, workers: int, before: str | None, seed: int
) -> None:
    """Ultimate hard at `budget` (CPU) against itself at 10×, or against the hard of the
    checkout `before` at 10×: the score, both sides, over games seeded from `seed`."""
    folder = renamed_core(before) if before else None
    tasks = [
        (seed + g * 2 + (mark == O), mark, budget, folder) for g in range(games) for mark in (X, O)
    ]
    with Pool(workers) as pool:
        results = list(pool.imap(play_ultimate_10x, tasks))
    count = Counter(results)
    score = (count["win"] + count["draw"] / 2) / len(results)
    opponent = f"the hard of {before}" if before else "hard"
    sides = " ".join(
        f"as {mark}: {'/'.join(str(results[i::2].count(r)) for r in ('win', 'draw', 'loss'))}"
        for i, mark in enumerate((X, O))
    )
    print(
        f"ultimate: hard at {budget:g} s CPU against {opponent} at {10 * budget:g} s, "
        f"{games} games a side: W/D/L {count['win']}/{count['draw']}/{count['loss']} "
        f"({sides}), score {score:.0%}"
    )
