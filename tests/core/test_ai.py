"""core.ai and core.solver, checked on the whole game tree against an independent minimax.

Strategies draw only through `rng.choice`, so a spy Random that records the sequence it is
offered tells us every move a strategy could make: the tests walk all of them, and randomness
cannot hide a bad choice.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.ai import (
    LEVELS,
    STRATEGIES,
    Strategy,
    choose_move,
    completing_cells,
    easy_move,
    hard_move,
    medium_move,
)
from core.board import EMPTY, Board, GameOverError, O, X, other
from core.notation import format_cells, parse_cells
from core.rules import is_over, play, turn, winner
from core.solver import best_moves, position_score, solved_table
from tests.support.ai_doubles import possible_moves

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

Cells = tuple[str, ...]


# --- an independent model of the game ---------------------------------------------------------


def _has_line(cells: Cells, mark: str) -> bool:
    return any(cells[a] == cells[b] == cells[c] == mark for a, b, c in LINES)


def _mover(cells: Cells) -> str:
    return X if cells.count(X) == cells.count(O) else O


def _finished(cells: Cells) -> bool:
    return _has_line(cells, X) or _has_line(cells, O) or EMPTY not in cells


def _put(cells: Cells, cell: int, mark: str) -> Cells:
    return (*cells[:cell], mark, *cells[cell + 1 :])


def _free(cells: Cells) -> list[int]:
    return [i for i, c in enumerate(cells) if c == EMPTY]


def _immediate_wins(cells: Cells, mark: str) -> list[int]:
    return [i for i in _free(cells) if _has_line(_put(cells, i, mark), mark)]


def _reachable() -> list[Cells]:
    start: Cells = (EMPTY,) * 9
    seen = {start}
    stack = [start]
    while stack:
        cells = stack.pop()
        if _finished(cells):
            continue
        for i in _free(cells):
            child = _put(cells, i, _mover(cells))
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return sorted(seen)


REACHABLE = _reachable()
IN_PLAY = [Board(cells) for cells in REACHABLE if not _finished(cells)]
FINISHED = [Board(cells) for cells in REACHABLE if _finished(cells)]


@cache
def _outcome(cells: Cells) -> tuple[int, int]:
    """(value for the player to move: 1 win, 0 draw, -1 loss; plies to the end of the game).

    Both sides play perfectly, win as soon as they can and lose as late as they can.
    """
    if _has_line(cells, other(_mover(cells))):
        return -1, 0
    if EMPTY not in cells:
        return 0, 0
    return max((_after(cells, i) for i in _free(cells)), key=_rank)


def _after(cells: Cells, cell: int) -> tuple[int, int]:
    """The outcome for the player to move if they play `cell`."""
    value, plies = _outcome(_put(cells, cell, _mover(cells)))
    return -value, plies + 1


def _rank(outcome: tuple[int, int]) -> tuple[int, int]:
    value, plies = outcome
    return value, -plies if value > 0 else plies if value < 0 else 0


def _optimal(cells: Cells) -> set[int]:
    ranks = {i: _rank(_after(cells, i)) for i in _free(cells)}
    best = max(ranks.values())
    return {i for i, r in ranks.items() if r == best}


# --- every move a strategy could make -----------------------------------------------------------


# --- the independent model itself -------------------------------------------------------------


def test_the_model_agrees_with_the_solved_table() -> None:
    assert len(REACHABLE) == 5478
    assert set(REACHABLE) == set(solved_table())
    assert _outcome((EMPTY,) * 9) == (0, 9)  # perfect play is a draw on a full board


def test_completing_cells_on_every_position() -> None:
    for board in IN_PLAY:
        for mark in (X, O):
            assert completing_cells(board, mark) == _immediate_wins(board.cells, mark)


# --- solver and hard ------------------------------------------------------------------------


def test_best_moves_are_the_optimal_moves_on_every_position() -> None:
    for board in IN_PLAY:
        assert set(best_moves(board)) == _optimal(board.cells), format_cells(board)
        value, plies = _outcome(board.cells)
        score = position_score(board)
        assert (score > 0, score == 0, score < 0) == (value > 0, value == 0, value < 0)
        if value:
            # A win scores more the sooner it comes, a loss less: free cells left at the end + 1.
            assert abs(score) == len(board.free_cells()) - plies + 1


def test_finished_positions_have_no_best_moves() -> None:
    for board in FINISHED:
        assert best_moves(board) == ()
        assert position_score(board) == (-(len(board.free_cells()) + 1) if winner(board) else 0)


def test_hard_chooses_among_exactly_the_best_moves() -> None:
    for board in IN_PLAY:
        assert sorted(possible_moves(hard_move, board)) == sorted(best_moves(board))


@pytest.mark.parametrize("hard_mark", [X, O])
def test_hard_never_loses_and_converts_every_forced_win(hard_mark: str) -> None:
    """Walk every game: the opponent tries every move, hard every move it could choose."""
    endings: Counter[str] = Counter()
    visited: set[tuple[Cells, bool]] = set()

    def walk(board: Board, must_win: bool) -> None:
        if (board.cells, must_win) in visited:
            return
        visited.add((board.cells, must_win))
        if is_over(board):
            assert winner(board) != other(hard_mark), format_cells(board)
            if must_win:
                assert winner(board) == hard_mark, format_cells(board)
            endings["win" if winner(board) else "draw"] += 1
            endings["forced win" if must_win else "free"] += 1
            return
        if turn(board) == hard_mark:
            if must_win:
                assert position_score(board) > 0, "hard let a forced win slip"
            must_win = position_score(board) > 0
            for cell in possible_moves(hard_move, board):
                walk(play(board, cell), must_win)
        else:
            for cell in board.free_cells():
                walk(play(board, cell), must_win)

    walk(Board.empty(), False)
    # The walk saw both draws and punished mistakes.
    assert endings["draw"] > 0
    assert endings["win"] > 0
    assert endings["forced win"] > 0


def test_hard_takes_a_win_in_one_whenever_there_is_one() -> None:
    seen = 0
    for board in IN_PLAY:
        wins = _immediate_wins(board.cells, turn(board))
        if wins:
            seen += 1
            assert sorted(best_moves(board)) == wins
            assert winner(play(board, hard_move(board, random.Random(seen)))) == turn(board)
    assert seen > 500


def test_hard_blocks_a_single_threat() -> None:
    seen = 0
    for board in IN_PLAY:
        me = turn(board)
        threats = _immediate_wins(board.cells, other(me))
        if not _immediate_wins(board.cells, me) and len(threats) == 1:
            seen += 1
            assert best_moves(board) == tuple(threats), format_cells(board)
    assert seen > 500


def test_hard_prefers_the_fastest_win_and_the_slowest_loss() -> None:
    faster_win_preferred = slower_loss_preferred = 0
    for board in IN_PLAY:
        cells = board.cells
        after = {i: _after(cells, i) for i in _free(cells)}
        best = best_moves(board)
        value = _outcome(cells)[0]
        if value > 0:
            wins = {i: plies for i, (v, plies) in after.items() if v > 0}
            assert {after[i][1] for i in best} == {min(wins.values())}
            faster_win_preferred += len(set(wins.values())) > 1
        elif value < 0:
            assert all(after[i][0] < 0 for i in after)
            plies = {i: p for i, (_, p) in after.items()}
            assert {plies[i] for i in best} == {max(plies.values())}
            slower_loss_preferred += len(set(plies.values())) > 1
    # Positions exist where the order matters, so the assertions above were not vacuous.
    assert faster_win_preferred > 0
    assert slower_loss_preferred > 0


def test_hard_example_positions() -> None:
    # X to move: win now in the top row rather than block or set up anything else.
    assert best_moves(parse_cells("XX_OO____")) == (2,)
    # O to move, X threatens the top row: block it.
    assert best_moves(parse_cells("XX__O____")) == (2,)
    # The empty board: every first move draws.
    assert sorted(best_moves(Board.empty())) == list(range(9))
    # O must answer a corner with the centre.
    assert best_moves(parse_cells("X________")) == (4,)


def test_hard_against_hard_is_always_a_draw() -> None:
    for seed in range(50):
        rng = random.Random(seed)
        board = Board.empty()
        while not is_over(board):
            board = play(board, hard_move(board, rng))
        assert winner(board) is None
        assert not board.free_cells()


# --- medium and easy ----------------------------------------------------------------------------


def test_medium_completes_its_line_else_blocks_else_plays_anywhere() -> None:
    for board in IN_PLAY:
        me = turn(board)
        wins = _immediate_wins(board.cells, me)
        blocks = _immediate_wins(board.cells, other(me))
        expected = wins or blocks or board.free_cells()
        assert sorted(possible_moves(medium_move, board)) == expected, format_cells(board)
        for seed in range(3):
            assert medium_move(board, random.Random(seed)) in expected


def test_easy_plays_any_free_cell() -> None:
    for board in IN_PLAY:
        assert sorted(possible_moves(easy_move, board)) == board.free_cells()
        assert easy_move(board, random.Random(len(board.free_cells()))) in board.free_cells()


def _assert_uniform(strategy: Strategy, board: Board, options: list[int], seed: int) -> None:
    """Draw 2,000 moves per option with a fixed seed: every option, and roughly evenly."""
    rng = random.Random(seed)
    n = 2000 * len(options)
    counts = Counter(strategy(board, rng) for _ in range(n))
    assert sorted(counts) == sorted(options)
    expected = n / len(options)
    chi2 = sum((counts[o] - expected) ** 2 / expected for o in options)
    df = len(options) - 1
    assert chi2 < df + 6 * (2 * df) ** 0.5  # far beyond any plausible fluctuation
    assert all(abs(counts[o] - expected) < 0.1 * expected for o in options)


def _first(predicate: Any) -> Board:
    return next(board for board in IN_PLAY if predicate(board))


def test_easy_is_uniform_over_the_free_cells() -> None:
    _assert_uniform(easy_move, Board.empty(), list(range(9)), seed=1)
    board = parse_cells("_XXOO_OX_")
    _assert_uniform(easy_move, board, [0, 5, 8], seed=2)


def test_medium_is_uniform_over_its_candidates() -> None:
    # Two ways to win: choose either.
    two_wins = _first(lambda b: len(_immediate_wins(b.cells, turn(b))) >= 2)
    _assert_uniform(medium_move, two_wins, _immediate_wins(two_wins.cells, turn(two_wins)), 3)
    # No win, two threats to block: choose either.
    two_blocks = _first(
        lambda b: (
            not _immediate_wins(b.cells, turn(b))
            and len(_immediate_wins(b.cells, other(turn(b)))) >= 2
        )
    )
    blocks = _immediate_wins(two_blocks.cells, other(turn(two_blocks)))
    _assert_uniform(medium_move, two_blocks, blocks, 4)
    # Nothing to win or block: any free cell.
    _assert_uniform(medium_move, Board.empty(), list(range(9)), 5)
    quiet = parse_cells("X___O____")
    _assert_uniform(medium_move, quiet, quiet.free_cells(), 6)


def test_hard_is_uniform_over_its_best_moves() -> None:
    _assert_uniform(hard_move, Board.empty(), list(range(9)), seed=7)
    corners = parse_cells("____X____")  # O's best replies are the four corners
    assert sorted(best_moves(corners)) == [0, 2, 6, 8]
    _assert_uniform(hard_move, corners, [0, 2, 6, 8], seed=8)


# --- finished boards, levels, random state ----------------------------------------------------


@pytest.mark.parametrize("strategy", [easy_move, medium_move, hard_move])
@pytest.mark.parametrize("text", ["XXXOO____", "OOOXX_X__", "OXXXOOOXX", "XOXOXOXOX"])
def test_strategies_refuse_a_finished_board(strategy: Strategy, text: str) -> None:
    with pytest.raises(GameOverError):
        strategy(parse_cells(text), random.Random(0))


def test_every_finished_board_is_refused() -> None:
    for board in FINISHED:
        for strategy in (easy_move, medium_move, hard_move):
            with pytest.raises(GameOverError):
                strategy(board, random.Random(0))


def test_choose_move_dispatches_on_the_level() -> None:
    assert LEVELS == ("easy", "medium", "hard")
    assert {"easy": easy_move, "medium": medium_move, "hard": hard_move} == STRATEGIES
    for board in IN_PLAY[::97]:
        for level in LEVELS:
            moves = [choose_move(level, board, random.Random(s)) for s in range(5)]
            assert moves == [STRATEGIES[level](board, random.Random(s)) for s in range(5)]
    with pytest.raises(ValueError, match="nightmare"):
        choose_move("nightmare", Board.empty(), random.Random(0))


def _moves_with(seed: int) -> list[int]:
    rng = random.Random(seed)
    return [strategy(board, rng) for board in IN_PLAY[::41] for strategy in STRATEGIES.values()]


def test_strategies_ignore_the_global_random_state() -> None:
    saved = random.getstate()
    try:
        random.seed(0)
        first = _moves_with(1234)
        random.seed(987654321)
        state = random.getstate()
        second = _moves_with(1234)
        assert first == second
        assert random.getstate() == state  # and do not consume it either
        assert _moves_with(4321) != first  # the passed rng is really used
    finally:
        random.setstate(saved)


def test_strategies_work_with_the_global_functions_disabled(monkeypatch: Any) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("global random state used")

    for name in ("random", "choice", "choices", "randrange", "randint", "shuffle", "sample"):
        monkeypatch.setattr(random, name, forbidden)
    assert len(_moves_with(99)) > 0


# --- properties of games between levels -------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    x_level=st.sampled_from(LEVELS),
    o_level=st.sampled_from(LEVELS),
    seed=st.integers(0, 2**32 - 1),
)
def test_games_between_levels(x_level: str, o_level: str, seed: int) -> None:
    rng = random.Random(seed)
    board = Board.empty()
    levels = {X: x_level, O: o_level}
    while not is_over(board):
        cells = board.cells
        mover = turn(board)
        cell = choose_move(levels[mover], board, rng)
        assert cell in board.free_cells()
        board = play(board, cell)
        assert board.cells == _put(cells, cell, mover)
        if levels[mover] in ("medium", "hard") and _immediate_wins(cells, mover):
            assert winner(board) == mover  # nobody at medium or above misses a win in one
    if x_level == "hard":
        assert winner(board) != O
    if o_level == "hard":
        assert winner(board) != X
