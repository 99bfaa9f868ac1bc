"""Victory by continuous fours (core.search.threats) and hard's use of it, against an independent
model: a fours-only game tree walked on Board values with test_search's scan of the grid."""

from __future__ import annotations

import random
from functools import cache

import pytest

from core.board import Board, X, other
from core.notation import format_cells
from core.rules import play, turn
from core.search.engine import _Engine, search
from core.search.threats import vcf
from tests.core.test_search import hard, sample, wins
from tests.support.ai_doubles import NodeClock

CONFIGS = [(6, 4), (7, 5), (8, 4), (8, 5)]


def fours(board: Board, mark: str) -> list[int]:
    """Free cells where `mark` would get a winning cell."""
    return [c for c in board.free_cells() if wins(board.with_mark(c, mark), mark)]


@cache
def wins_by_fours(board: Board, depth: int) -> bool:
    """The model: the player to move wins with fours only (each answered at its one cell)
    within `depth` of its own moves, the opponent having no win in one of its own."""
    me = turn(board)
    them = other(me)
    if wins(board, me):
        return True
    if wins(board, them) or depth == 0:
        return False
    for cell in fours(board, me):
        after = board.with_mark(cell, me)
        threats = wins(after, me)
        if len(threats) > 1:
            return True
        (block,) = threats
        if wins_by_fours(play(after, block), depth - 1):
            return True
    return False


def engine(board: Board) -> tuple[_Engine, int]:
    return _Engine(board, NodeClock()), 1 if turn(board) == X else 2


def check_line(board: Board, first: int) -> None:
    """Play the VCF found by core.search.threats against every reply: it must end in a win."""
    me = turn(board)
    after = board.with_mark(first, me)
    threats = wins(after, me)
    assert threats, format_cells(board)
    if len(threats) > 1:
        return
    (block,) = threats
    reply = play(after, block)
    if wins(reply, me):
        return
    e, p = engine(reply)
    follow = vcf(e, p)
    assert follow is not None, format_cells(reply)
    check_line(reply, follow)


def positions_without_immediate_wins(size: int, k: int) -> list[Board]:
    return [b for b in sample(size, k) if not wins(b, turn(b)) and not wins(b, other(turn(b)))][:60]


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_every_vcf_found_is_a_forced_win(size: int, k: int) -> None:
    found = 0
    for board in positions_without_immediate_wins(size, k):
        e, p = engine(board)
        first = vcf(e, p)
        if first is not None:
            found += 1
            check_line(board, first)
    assert found >= 3


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_vcf_finds_the_models_short_wins(size: int, k: int) -> None:
    # Within three fours the model and the search agree: a win the model sees is found.
    for board in positions_without_immediate_wins(size, k)[:30]:
        e, p = engine(board)
        if wins_by_fours(board, 3):
            assert vcf(e, p) is not None, format_cells(board)


def test_vcf_leaves_the_board_as_it_was() -> None:
    board = positions_without_immediate_wins(8, 5)[5]
    e, p = engine(board)
    before = (list(e.cells), e.key, list(e.sums), [set(h) for h in e.hot], [set(w) for w in e.warm])
    vcf(e, p)
    assert (
        list(e.cells),
        e.key,
        list(e.sums),
        [set(h) for h in e.hot],
        [set(w) for w in e.warm],
    ) == (before)


@pytest.mark.slow
@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_leaves_the_opponent_no_short_win_by_fours(size: int, k: int) -> None:
    """Whenever some move leaves the opponent no win by (up to two) fours, hard's does."""
    checked = 0
    for seed, board in enumerate(positions_without_immediate_wins(size, k)[:25]):
        me = turn(board)
        e, p = engine(board)
        if vcf(e, p) is not None:
            continue  # hard wins first
        safe = [c for c in board.free_cells() if not wins_by_fours(board.with_mark(c, me), 2)]
        if not safe or len(safe) == len(board.free_cells()):
            continue
        checked += 1
        move = hard(board, seed, budget=0.2)
        assert not wins_by_fours(board.with_mark(move, me), 2), format_cells(board)
    assert checked >= 1


def test_hard_plays_a_forced_win_by_fours() -> None:
    # The first sampled 8×8, k=5 position where the player to move wins by fours.
    for board in positions_without_immediate_wins(8, 5):
        e, p = engine(board)
        if vcf(e, p) is not None:
            info = search(board, random.Random(0), time_budget=0.1, clock=NodeClock())
            assert info.depth == 0  # answered by the threat search, no tree search
            check_line(board, info.move)
            return
    raise AssertionError("no sampled position with a win by fours")
