"""Regenerates core/ultimate/weights.py, the weights of ultimate hard's evaluation
(core.ultimate.evaluation), and prints how well each stage fits:

    .venv/bin/python bench/ultimate_eval_train.py [--workers 2] [--td-games 360000]

1. Positions: games between medium players (each move, with a chance of 5%, 20% or 50% per
   game, a random one instead), every position labelled with the mean result of two playouts
   (core.ultimate.mcts.playout) from it, for the player to move. 100 × 400 games to fit on and
   10 × 400 to check the fit (mean squared error against the labels, and of their mean).
2. Fit: logistic regression of the labels on the features, two passes of AdaGrad.
3. Refine: temporal-difference learning. In each game (one or two random first moves, then
   each side takes the move whose evaluation is best for it, or a random one 10% of the time)
   every position's value is moved towards the best value one move ahead (a won game is 1, a
   draw ½). Half of --td-games at a step of 0.01, then half at 0.005.

Seeded throughout, so a run regenerates the same weights on the same Python. It takes about
25 minutes on two cores.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from array import array
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.ultimate import ai as ultimate_ai  # noqa: E402
from core.ultimate import rules as ultimate  # noqa: E402
from core.ultimate.evaluation import FEATURES, chance, features, move_worth, pack  # noqa: E402
from core.ultimate.mcts import playout  # noqa: E402
from core.ultimate.rules import Position  # noqa: E402

TRAIN_SEEDS = range(1000, 1100)
CHECK_SEEDS = range(500_000, 500_010)
GAMES_PER_SEED = 400
WEIGHT_STEP = 0.02  # the weights are stored as multiples of this, from -127 to 127 steps


def labelled_positions(seed: int) -> tuple[array, array]:
    """One seed's positions: their features (flat) and their labels."""
    rng = random.Random(seed)
    rand = rng.random
    found, labels = array("i"), array("d")
    for _ in range(GAMES_PER_SEED):
        board = ultimate.UltimateBoard.empty()
        position = Position(board)
        randomness = rng.choice((0.05, 0.2, 0.5))
        while not position.result:
            total = 0.0
            for _ in range(2):
                result = playout(position.copy(), rand, [0, 0, 0])
                total += 1.0 if result == position.player else 0.5 if result == 3 else 0.0
            found.extend(features(position))
            labels.append(total / 2)
            if rand() < randomness:
                move = rng.choice(position.moves())
            else:
                move = ultimate_ai.medium_move(board, rng)
            board = ultimate.play(board, move)
            position.play(move)
    return found, labels


def gather(seeds: range, workers: int) -> tuple[array, array]:
    found, labels = array("i"), array("d")
    with Pool(workers) as pool:
        for seed_found, seed_labels in pool.imap(labelled_positions, seeds):
            found.extend(seed_found)
            labels.extend(seed_labels)
    return found, labels


def squared_errors(weights: list[float], found: array, labels: array) -> tuple[float, float]:
    """Mean squared error of the evaluation, and of the labels' mean, against the labels."""
    width = len(found) // len(labels)
    mean = sum(labels) / len(labels)
    error = spread = 0.0
    for i, label in enumerate(labels):
        error += (chance(found[i * width : (i + 1) * width], weights) - label) ** 2
        spread += (mean - label) ** 2
    return error / len(labels), spread / len(labels)


def fit(weights: list[float], found: array, labels: array, passes: int, rate: float) -> None:
    """Logistic regression by AdaGrad, in place."""
    width = len(found) // len(labels)
    squares = [1e-8] * len(weights)
    order = list(range(len(labels)))
    for n in range(passes):
        random.Random(n).shuffle(order)
        for i in order:
            indices = found[i * width : (i + 1) * width]
            gradient = chance(indices, weights) - labels[i]
            for j in indices:
                squares[j] += gradient * gradient
                weights[j] -= rate * gradient / math.sqrt(squares[j])


def best_reply(position: Position, weights: list[float]) -> tuple[float, list[int], int]:
    """The mover's best value one move ahead, its moves, and the best of them."""
    me, best, best_value = position.player, -1, -1.0
    moves = position.moves()
    for move in moves:
        value = move_worth(position.after(move), me, weights)
        if value > best_value:
            best, best_value = move, value
    return best_value, moves, best


def self_play(weights: list[float], games: int, rate: float, seed: int) -> float:
    """TD learning over `games` games, in place; the mean squared TD error of the last 10%."""
    rng = random.Random(seed)
    error, counted = 0.0, 0
    for game in range(games):
        position = Position(ultimate.UltimateBoard.empty())
        for _ in range(rng.randrange(3)):
            position.play(rng.choice(position.moves()))
        while not position.result:
            target, moves, best = best_reply(position, weights)
            indices = features(position)
            delta = target - chance(indices, weights)
            for j in indices:
                weights[j] += rate * delta
            if game >= games * 0.9:
                error, counted = error + delta * delta, counted + 1
            position.play(rng.choice(moves) if rng.random() < 0.1 else best)
    return error / max(counted, 1)


def write_module(weights: list[float]) -> Path:
    path = ROOT / "core" / "ultimate" / "weights.py"
    path.write_text(
        '"""The weights of core.ultimate.evaluation, generated by bench/ultimate_eval_train.py\n'
        '(which says how): do not edit."""\n\n'
        f"WEIGHT_STEP = {WEIGHT_STEP}\n"
        f'PACKED_WEIGHTS = b"{pack(weights, WEIGHT_STEP).decode()}"  # noqa: E501\n'
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--td-games", type=int, default=360_000)
    args = parser.parse_args()
    started = time.perf_counter()
    found, labels = gather(TRAIN_SEEDS, args.workers)
    check_found, check_labels = gather(CHECK_SEEDS, args.workers)
    print(f"positions: {len(labels):,} to fit, {len(check_labels):,} to check")
    weights = [0.0] * FEATURES
    fit(weights, found, labels, passes=2, rate=0.1)
    error, spread = squared_errors(weights, check_found, check_labels)
    print(f"fitted to playouts: squared error {error:.4f} (the labels' mean: {spread:.4f})")
    del found, labels
    for half, rate in enumerate((0.01, 0.005)):
        td_error = self_play(weights, args.td_games // 2, rate, seed=half + 1)
        print(f"self-play at step {rate}: squared TD error {td_error:.4f}")
    error, spread = squared_errors(weights, check_found, check_labels)
    print(f"after self-play, against the playouts: {error:.4f} (the labels' mean: {spread:.4f})")
    print(f"wrote {write_module(weights)} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
