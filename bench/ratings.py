"""Benchmark: the AI levels' ratings, measured, for `bot/games/rating_rules.AI_RATINGS`.

Run from the repository root:

    .venv/bin/python bench/ratings.py [--games 20] [--workers 2] [--ultimate-games 6]

Each pair of levels (easy–medium, medium–hard, easy–hard) plays --games games per side on
each class of board the ratings keep apart: 3×3; big boards (5×5 with 4 in a row and 7×7
with 5, half the games each); and ultimate (--ultimate-games a side: hard thinks 0.5 s a
move there). The AI plays as in the bot (hard at its budgets, seeded random choices). The
ratings are the maximum-likelihood fit of the Elo/Glicko logistic model (a 400-point gap is
10:1 odds) to the scores, Easy anchored at 1000, with one virtual draw between each pair of
levels so that a level that never dropped a point keeps a finite rating (a prior, as Glicko
has one). It prints each pair's score and the fitted ratings.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.board import Board
from core.positions import ULTIMATE, choose_move, is_full, play, winner

LEVELS = ("easy", "medium", "hard")
PAIRS = (("easy", "medium"), ("medium", "hard"), ("easy", "hard"))
ANCHOR = 1000.0  # Easy's rating, by definition


def play_game(task: tuple[str, int, int, str, str, int]) -> tuple[str, str, str, float]:
    """One game: (class, size, k, x level, o level, seed) → (class, x, o, X's score)."""
    pool, size, k, x_level, o_level, seed = task
    rng = random.Random(seed)
    board = ULTIMATE.empty_board() if pool == "ultimate" else Board.empty(size, k)
    last: int | None = None
    mark = "X"
    while True:
        level = x_level if mark == "X" else o_level
        cell = choose_move(level, board, last, rng)
        board, last = play(board, last, cell), cell
        won = winner(board, last)
        if won is not None:
            return pool, x_level, o_level, 1.0 if won == "X" else 0.0
        if is_full(board, last):
            return pool, x_level, o_level, 0.5
        mark = "O" if mark == "X" else "X"


def fit(scores: dict[tuple[str, str], list[float]]) -> dict[str, float]:
    """Ratings maximising the likelihood of the scores (level A's scores against B), Easy
    fixed at ANCHOR, one virtual draw per pair."""
    ratings = dict.fromkeys(LEVELS, ANCHOR)
    games = defaultdict(list)
    for (a, b), results in scores.items():
        games[(a, b)].extend([*results, 0.5])
    for _ in range(20_000):
        gradient = dict.fromkeys(LEVELS, 0.0)
        for (a, b), results in games.items():
            expected = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            surplus = sum(results) - expected * len(results)
            gradient[a] += surplus
            gradient[b] -= surplus
        for level in LEVELS[1:]:
            ratings[level] += 2.0 * gradient[level]
    return ratings


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per pair and side")
    parser.add_argument("--ultimate-games", type=int, default=6)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    tasks = []
    seed = 0
    for pool, boards, count in (
        ("3x3", [(3, 3)], args.games),
        ("big", [(5, 4), (7, 5)], args.games),
        ("ultimate", [(9, 3)], args.ultimate_games),
    ):
        for a, b in PAIRS:
            for i in range(count):
                size, k = boards[i % len(boards)]
                for x, o in ((a, b), (b, a)):
                    seed += 1
                    tasks.append((pool, size, k, x, o, seed))
    scores: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    with Pool(args.workers) as workers:
        for pool, x, o, score in workers.imap_unordered(play_game, tasks):
            scores[pool][(x, o)].append(score)
            scores[pool][(o, x)].append(1 - score)
    print("| class | pair | games | score of the first | fitted: easy / medium / hard |")
    print("| --- | --- | --- | --- | --- |")
    for pool in ("3x3", "big", "ultimate"):
        pairs = {pair: scores[pool][pair] for pair in PAIRS}
        ratings = fit(pairs)
        fitted = " / ".join(f"{ratings[level]:.0f}" for level in LEVELS)
        for a, b in PAIRS:
            got = pairs[(a, b)]
            mean = sum(got) / len(got) if got else math.nan
            print(f"| {pool} | {a}–{b} | {len(got)} | {mean:.2f} | {fitted} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
