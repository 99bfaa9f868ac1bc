"""Won boards are won (issue 39): on a board the first player wins by force, hard as ❌ wins
against every defence, proven by playing every ⭕ reply at every ⭕ turn to the game's end.

Hard's strategy there is a fixed one (core.search.engine, WON_BOARD_READINGS: a budget in clock
readings, not seconds, and the lowest of equally good moves), so one walk of the tree of ⭕'s
replies proves it for any machine and any random generator, but for its first move: a random
central cell, each of which is walked. Positions reached twice are walked once.
"""

from __future__ import annotations

import random

import pytest

from core.ai import hard_move
from core.board import Board, X
from core.mnk_results import first_player_wins
from core.rules import is_over, play, winner
from core.search.engine import WON_BOARD_READINGS, search


def wins_against_every_defence(board: Board, known: dict[tuple[str, ...], bool]) -> bool:
    """Whether hard, ❌ to move on `board`, wins against every sequence of ⭕ replies."""
    seen = known.get(board.cells)
    if seen is not None:
        return seen
    after = play(board, hard_move(board, random.Random(0)))
    if is_over(after):
        won = winner(after) == X
    else:
        won = all(
            not is_over(reply) and wins_against_every_defence(reply, known)
            for reply in (play(after, cell) for cell in after.free_cells())
        )
    known[board.cells] = won
    return won


def first_moves(size: int, k: int) -> list[int]:
    empty = Board.empty(size, k)
    return sorted({hard_move(empty, random.Random(seed)) for seed in range(40)})


def wins_from_the_first_move(size: int, k: int, first: int, shard: int = 0, of: int = 1) -> bool:
    """Whether hard wins after its `first` move against every defence: after each of ⭕'s
    replies, or (`shard` of `of`) after every `of`-th of them (the shards of a proof)."""
    opened = play(Board.empty(size, k), first)
    known: dict[tuple[str, ...], bool] = {}
    replies = list(opened.free_cells())[shard::of]
    return all(wins_against_every_defence(play(opened, c), known) for c in replies)


@pytest.mark.parametrize("size", [4, 5, 6])
def test_hard_as_x_wins_k3_against_every_defence(size: int) -> None:
    assert first_player_wins(size, size, 3)
    for first in first_moves(size, 3):
        assert wins_from_the_first_move(size, 3, first), first


@pytest.mark.slow
@pytest.mark.parametrize("size", [7, 8])
def test_hard_as_x_wins_k3_on_the_big_boards_against_every_defence(size: int) -> None:
    # One central first move (8×8 has four; bench/won_boards.py walks them all).
    first = first_moves(size, 3)[0]
    assert wins_from_the_first_move(size, 3, first), first


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(3))
def test_hard_as_x_wins_6x6_k4_against_every_defence(shard: int) -> None:
    # One of the four central first moves (15 s each; bench/won_boards.py walks all), proven in
    # three tests, each after a third of ⭕'s replies (few positions of one third are reached
    # from another: the three walk about as many as one walk of all).
    assert first_player_wins(6, 6, 4)
    assert wins_from_the_first_move(6, 4, 14, shard, of=3)


@pytest.mark.slow
def test_the_issue_39_opening_is_won_against_every_defence() -> None:
    # ❌ 2, ⭕ 23, ❌ 17, ⭕ 21: at 50 ms hard played 20 and lost; 22 wins by force.
    board = Board.empty(6, 4)
    for cell in (2, 23, 17, 21):
        board = play(board, cell)
    assert search(board, random.Random(0)).move == 22
    assert wins_against_every_defence(board, {})


def test_the_first_player_on_a_won_board_searches_by_readings_not_seconds() -> None:
    # The same move and nodes whatever budget or clock the caller passes.
    board = Board.empty(6, 4)
    for cell in (2, 23, 17, 21):
        board = play(board, cell)
    stopped = search(board, random.Random(1), time_budget=0.0, clock=lambda: 1e9)
    free = search(board, random.Random(2), time_budget=10.0)
    assert (stopped.move, stopped.nodes) == (free.move, free.nodes)
    assert 0 < stopped.nodes <= WON_BOARD_READINGS


def test_the_second_player_keeps_its_time_budget() -> None:
    board = play(Board.empty(6, 4), 14)
    hurried = search(board, random.Random(0), time_budget=0.0, clock=lambda: 1e9)
    assert hurried.depth == 1  # only the untimed first pass completes
