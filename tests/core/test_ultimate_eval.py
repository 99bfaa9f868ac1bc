"""core.ultimate.evaluation, the learned evaluation of ultimate hard, and its use in the tree
search: the features against a model built on the rules' public functions, the shipped weights
against playouts, and the minimax of the evaluation that core.ultimate.mcts keeps in its tree."""

from __future__ import annotations

import base64
import random
import subprocess
import sys
import zlib
from array import array
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.board import EMPTY, other
from core.ultimate.evaluation import (
    BIAS,
    FEATURES,
    child_worths,
    features,
    logistic,
    move_worth,
    mover_wins,
    pack,
    shipped_weights,
    unpack,
)
from core.ultimate.mcts import Tree, iterate, playout, ranked_children
from core.ultimate.rules import (
    DRAWN,
    LINES,
    Position,
    UltimateBoard,
    block_cells,
    block_result,
    is_over,
    turn,
)
from core.ultimate.weights import PACKED_WEIGHTS, WEIGHT_STEP
from tests.core.test_ultimate import random_game


def model_features(board: UltimateBoard) -> list[int]:
    """The features of core.ultimate.evaluation's docstring, read from the board's cells."""
    me = turn(board)
    them = other(me)
    target = board.last % 9 if board.last is not None else -1
    if target >= 0 and block_result(board, target) is not None:
        target = -1
    found, kinds = [], []
    for b in range(9):
        cells, result = block_cells(board, b), block_result(board, b)
        if result is None:
            digits = [0 if c == EMPTY else 1 if c == me else 2 for c in cells]
            state = sum(3**i * d for i, d in enumerate(digits))
            kind = 3 + can_win(cells, me) + 2 * can_win(cells, them)
        else:
            state = 3**9 + (2 if result == DRAWN else 0 if result == me else 1)
            kind = 0 if result == DRAWN else 1 if result == me else 2
        where = 2 if target < 0 else 1 if target == b else 0
        found.append((b * (3**9 + 3) + state) * 3 + where)
        kinds.append(kind)
    line_base = 9 * (3**9 + 3) * 3
    for i, (a, b, c) in enumerate(LINES):
        found.append(line_base + i * 343 + kinds[a] * 49 + kinds[b] * 7 + kinds[c])
    digits = [{0: 3, 1: 1, 2: 2}.get(kind, 0) for kind in kinds]
    found.append(line_base + 8 * 343 + sum(d * 4 ** (8 - b) for b, d in enumerate(digits)))
    found.append(FEATURES - 1)
    return found


def can_win(cells: tuple[str, ...], mark: str) -> bool:
    """Could `mark` complete a line of this small board with one more cell?"""
    return any(
        [cells[i] for i in line].count(mark) == 2 and EMPTY in [cells[i] for i in line]
        for line in LINES
    )


@given(st.integers(0, 10_000))
def test_features_follow_the_docstring(seed: int) -> None:
    for board in random_game(seed)[:-1]:
        assert features(Position(board)) == model_features(board)


@given(st.integers(0, 10_000))
def test_child_worths_are_move_worth_of_each_child(seed: int) -> None:
    # Summed once for all children, in another order, and rounded: equal within 1e-9.
    for board in random_game(seed)[:-1]:
        position = Position(board)
        moves = position.moves()
        expected = [move_worth(position.after(m), position.player) for m in moves]
        assert child_worths(position, moves) == pytest.approx(expected, abs=1e-9)


@given(st.integers(0, 10_000))
def test_features_are_the_movers_view(seed: int) -> None:
    # The same position with the players' marks swapped, and the other player to move, has
    # the same features: one table serves both players.
    for board in random_game(seed)[:-1:3]:
        position = Position(board)
        swapped = position.copy()
        swapped.marks = [[], position.marks[2][:], position.marks[1][:]]
        swapped.won = [0, position.won[2], position.won[1]]
        swapped.player = 3 - position.player
        assert features(swapped) == features(position)
        assert mover_wins(swapped) == mover_wins(position)


def test_weights_unpack_from_signed_steps() -> None:
    steps = array("b", [0, 1, -1, 127, -127, 5])
    packed = base64.b85encode(zlib.compress(steps.tobytes()))
    assert unpack(packed, 0.5) == [0.0, 0.5, -0.5, 63.5, -63.5, 2.5]
    # pack is unpack's inverse on multiples of the step, and clamps to ±127 steps.
    weights = [0.0, 0.5, -0.5, 63.5, -63.5, 2.5]
    assert unpack(pack(weights, 0.5), 0.5) == weights
    assert unpack(pack([0.26, 100.0, -100.0], 0.5), 0.5) == [0.5, 63.5, -63.5]
    weights = shipped_weights()
    assert len(weights) == FEATURES and weights[BIAS] != 0.0
    assert pack(weights, WEIGHT_STEP) == PACKED_WEIGHTS  # what the training script writes


@pytest.mark.process
def test_the_bot_process_does_not_unpack_the_weights() -> None:
    # The bot imports the AI but never searches in its own process (the AI runs in workers):
    # the 6 MB of weights are unpacked only where something is evaluated.
    code = (
        "import bot.app, core.ultimate.evaluation as e;"
        " print(e.shipped_weights.cache_info().currsize)"
    )
    root = Path(__file__).resolve().parents[2]
    unpacked = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, cwd=root
    )
    assert unpacked.stdout.strip() == b"0"


def test_logistic_is_bounded_for_any_sum() -> None:
    assert logistic(0.0) == 0.5
    assert logistic(-1e9) == 0.0 and logistic(1e9) == 1.0
    assert 0.5 < logistic(1.0) < 1.0 and logistic(-1.0) == 1.0 - logistic(1.0)


def test_the_shipped_weights_predict_playouts() -> None:
    # On positions of seeded random games, the evaluation is much closer to the mean of 32
    # playouts than a constant ½ is: the weights were learned (or unpacked in the right
    # order), not noise.
    rng = random.Random(7)
    evaluation_error = constant_error = 0.0
    count = 0
    for seed in range(40):
        for board in random_game(seed)[4:-1:6]:
            position = Position(board)
            results = [playout(position.copy(), rng.random, [0, 0, 0]) for _ in range(32)]
            mover = position.player
            mean = sum(1.0 if r == mover else 0.5 if r == 3 else 0.0 for r in results) / 32
            evaluation_error += (mover_wins(position) - mean) ** 2
            constant_error += (0.5 - mean) ** 2
            count += 1
    assert count >= 200
    assert evaluation_error < 0.6 * constant_error


def test_the_tree_keeps_the_minimax_of_the_evaluation() -> None:
    # After a search, every expanded node is worth, to the player who made its move, one
    # minus the best of its children; a node never expanded is worth its evaluation (a won
    # game 1, a drawn one ½).
    for seed, board in enumerate(random_game(3)[10:40:6]):
        if is_over(board):
            continue
        position = Position(board)
        rng = random.Random(seed)
        tree = Tree()
        tree.expand(0, *ranked_children(position, position.moves(), rng.random))
        for _ in range(300):
            iterate(tree, position, rng.random)
        checked = 0
        for node in range(len(tree.move)):
            value, count, first = tree.evaluation[node], tree.count[node], tree.first[node]
            children = tree.evaluation[first : first + count]
            if count:
                assert value == 1.0 - max(children)
                checked += 1
            else:
                assert 0.0 <= value <= 1.0
        assert checked >= 20


def test_children_are_ranked_by_the_evaluation() -> None:
    # Each child is worth, to the player who makes it, one minus the evaluation after it, or 1
    # for a move that wins the game; the best come first, and the order of equals is random.
    for board in random_game(5)[8:50:7]:
        if is_over(board):
            continue
        position = Position(board)
        moves, values = ranked_children(position, position.moves(), random.Random(1).random)
        assert sorted(moves) == sorted(position.moves())
        for move, value in zip(moves, values, strict=True):
            after = position.after(move)
            expected = 1.0 if after.result == position.player else 1.0 - mover_wins(after)
            assert value == pytest.approx(0.5 if after.result == 3 else expected, abs=1e-9)
        assert values == sorted(values, reverse=True)
    empty = Position(UltimateBoard.empty())
    orders = {
        tuple(ranked_children(empty, empty.moves(), random.Random(s).random)[0]) for s in range(5)
    }
    assert len(orders) > 1  # the empty board's symmetric moves are equal: shuffled
