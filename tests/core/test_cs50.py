"""core.cs50 against the CS50 AI tic-tac-toe specification (seed 001), to the letter.

`minimax` is compared with a brute-force minimax written here, on every reachable position.
"""

from __future__ import annotations

import copy
import random
from functools import cache
from typing import Any

import pytest

from core.cs50 import (
    EMPTY,
    O,
    X,
    actions,
    initial_state,
    minimax,
    player,
    result,
    terminal,
    utility,
    winner,
)

Grid = list[list[str | None]]
Key = tuple[tuple[str | None, ...], ...]

ALL_ACTIONS = {(i, j) for i in range(3) for j in range(3)}


def grid(text: str) -> Grid:
    """A CS50 board from `XO_` text, row by row."""
    cells = [None if c == "_" else c for c in text]
    return [cells[0:3], cells[3:6], cells[6:9]]


def key(board: Grid) -> Key:
    return tuple(tuple(row) for row in board)


# --- a brute-force minimax, independent of core ---------------------------------------------


def _bf_winner(b: Key) -> str | None:
    rows = [list(r) for r in b]
    lines = [*rows, *(list(col) for col in zip(*rows, strict=True))]
    lines += [[b[0][0], b[1][1], b[2][2]], [b[0][2], b[1][1], b[2][0]]]
    for line in lines:
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None


def _bf_turn(b: Key) -> str:
    flat = [c for row in b for c in row]
    return "X" if flat.count("X") == flat.count("O") else "O"


def _bf_children(b: Key) -> list[tuple[tuple[int, int], Key]]:
    mark = _bf_turn(b)
    out = []
    for i in range(3):
        for j in range(3):
            if b[i][j] is None:
                rows = [list(r) for r in b]
                rows[i][j] = mark
                out.append(((i, j), tuple(tuple(r) for r in rows)))
    return out


def _bf_over(b: Key) -> bool:
    return _bf_winner(b) is not None or all(c is not None for row in b for c in row)


@cache
def _bf_value(b: Key) -> int:
    """The minimax value: +1 X wins, -1 O wins, 0 draw, with both sides perfect."""
    if _bf_over(b):
        return {"X": 1, "O": -1}.get(_bf_winner(b), 0)  # type: ignore[arg-type]
    values = [_bf_value(child) for _, child in _bf_children(b)]
    return max(values) if _bf_turn(b) == "X" else min(values)


def _bf_reachable() -> list[Key]:
    start: Key = ((None,) * 3,) * 3
    seen = {start}
    stack = [start]
    while stack:
        b = stack.pop()
        if _bf_over(b):
            continue
        for _, child in _bf_children(b):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return sorted(seen, key=repr)


REACHABLE = _bf_reachable()


# --- the names ----------------------------------------------------------------------------------


def test_constants() -> None:
    assert X == "X"
    assert O == "O"
    assert EMPTY is None


def test_initial_state() -> None:
    board = initial_state()
    assert board == [[None, None, None], [None, None, None], [None, None, None]]
    assert isinstance(board, list)
    assert all(isinstance(row, list) for row in board)
    # A fresh board each time, with rows that share nothing.
    other = initial_state()
    assert other is not board
    board[0][0] = X
    assert other[0][0] is EMPTY
    assert board[1][0] is EMPTY
    assert len({id(row) for row in board}) == 3


# --- player -----------------------------------------------------------------------------------


def test_x_moves_first() -> None:
    assert player(initial_state()) == X


def test_player_alternates() -> None:
    rng = random.Random(50)
    for _ in range(30):
        board = initial_state()
        expected = X
        while not terminal(board):
            assert player(board) == expected
            board = result(board, rng.choice(sorted(actions(board))))
            expected = O if expected == X else X


@pytest.mark.parametrize(
    ("text", "mark"),
    [("X________", O), ("X___O____", X), ("XO_X_____", O), ("XOXOXO___", X), ("XOXOXOX__", O)],
)
def test_player_examples(text: str, mark: str) -> None:
    assert player(grid(text)) == mark


def test_player_on_every_reachable_position() -> None:
    for b in REACHABLE:
        if not _bf_over(b):
            assert player([list(row) for row in b]) == _bf_turn(b)


# --- actions ----------------------------------------------------------------------------------


def test_actions_on_the_initial_state() -> None:
    found = actions(initial_state())
    assert isinstance(found, set)
    assert found == ALL_ACTIONS
    assert all(isinstance(a, tuple) and len(a) == 2 for a in found)


def test_actions_are_the_empty_cells() -> None:
    assert actions(grid("_XXOO_OX_")) == {(0, 0), (1, 2), (2, 2)}
    assert actions(grid("XOXOXOOXO")) == set()
    for b in REACHABLE:
        board = [list(row) for row in b]
        expected = {(i, j) for i in range(3) for j in range(3) if b[i][j] is None}
        assert actions(board) == expected
        assert board == [list(row) for row in b]  # untouched


# --- result -----------------------------------------------------------------------------------


def test_result_marks_the_cell_for_the_player_to_move() -> None:
    board = initial_state()
    after = result(board, (0, 2))
    assert after == grid("__X______")
    assert result(after, (2, 0)) == grid("__X___O__")


def test_result_leaves_its_input_alone_and_shares_no_rows() -> None:
    for b in REACHABLE[::7]:
        board = [list(row) for row in b]
        rows = list(board)
        before = copy.deepcopy(board)
        for action in actions(board):
            after = result(board, action)
            assert board == before
            assert all(board[i] is rows[i] for i in range(3))  # not even the rows replaced
            assert after is not board
            assert all(after[i] is not board[i] for i in range(3))
            i, j = action
            assert after[i][j] == player(before)
            assert sum(after[r][c] != board[r][c] for r in range(3) for c in range(3)) == 1
            after[0][0] = "changed"  # the result is independent of the input
            assert board == before


@pytest.mark.parametrize("action", [(0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (2, 1)])
def test_result_refuses_an_occupied_cell(action: tuple[int, int]) -> None:
    board = grid("_XXOO_OX_")
    before = copy.deepcopy(board)
    with pytest.raises(Exception):  # noqa: B017 - the spec asks for "an exception"
        result(board, action)
    assert board == before


@pytest.mark.parametrize(
    "action",
    [
        (-1, 0),
        (0, -1),
        (-1, -1),
        (3, 0),
        (0, 3),
        (3, 3),
        (10, 10),
        (0,),
        (0, 0, 0),
        (),
        (0.0, 1),
        (2, 2.0),
        ("0", "1"),
        (None, 1),
        "01",
        None,
        0,
    ],
)
def test_result_refuses_an_action_that_is_not_a_cell(action: Any) -> None:
    board = grid("X___O____")
    before = copy.deepcopy(board)
    # The spec asks for "an exception"; ours says what is wrong with the action.
    with pytest.raises(ValueError, match=r"off the board|tuple \(i, j\) of two ints|taken"):
        result(board, action)
    assert board == before


def test_result_refuses_a_list_action() -> None:
    # The spec's actions are tuples: a list is refused, not read as a cell either way.
    board = grid("X___O____")
    with pytest.raises(ValueError, match=r"a tuple \(i, j\) of two ints, got \[0, 1\]"):
        result(board, [0, 1])  # type: ignore[arg-type]
    assert board == grid("X___O____")


# --- winner, terminal, utility ----------------------------------------------------------------

LINE_CELLS = [
    [(0, 0), (0, 1), (0, 2)],
    [(1, 0), (1, 1), (1, 2)],
    [(2, 0), (2, 1), (2, 2)],
    [(0, 0), (1, 0), (2, 0)],
    [(0, 1), (1, 1), (2, 1)],
    [(0, 2), (1, 2), (2, 2)],
    [(0, 0), (1, 1), (2, 2)],
    [(0, 2), (1, 1), (2, 0)],
]


@pytest.mark.parametrize("mark", [X, O])
@pytest.mark.parametrize("line", LINE_CELLS)
def test_winner_on_every_line(line: list[tuple[int, int]], mark: str) -> None:
    board = initial_state()
    for i, j in line:
        board[i][j] = mark
    assert winner(board) == mark
    assert terminal(board)
    assert utility(board) == (1 if mark == X else -1)


def test_no_winner_in_play_or_on_a_draw() -> None:
    assert winner(initial_state()) is None
    assert winner(grid("XX_OO____")) is None
    draw = grid("XOXXOOOXX")
    assert winner(draw) is None
    assert terminal(draw)
    assert utility(draw) == 0


def test_terminal() -> None:
    assert not terminal(initial_state())
    assert not terminal(grid("XX_OO____"))
    assert terminal(grid("XXXOO____"))
    assert terminal(grid("XOOXX_X_O")) is True  # X won down the left column
    assert terminal(initial_state()) is False


def test_winner_terminal_utility_on_every_reachable_position() -> None:
    for b in REACHABLE:
        board = [list(row) for row in b]
        assert winner(board) == _bf_winner(b)
        assert terminal(board) == _bf_over(b)
        if _bf_over(b):
            assert utility(board) == _bf_value(b)
        assert board == [list(row) for row in b]


# --- minimax ----------------------------------------------------------------------------------


def test_minimax_is_none_on_terminal_boards() -> None:
    for b in REACHABLE:
        if _bf_over(b):
            assert minimax([list(row) for row in b]) is None


def test_minimax_is_optimal_on_every_reachable_position() -> None:
    for b in REACHABLE:
        if _bf_over(b):
            continue
        board = [list(row) for row in b]
        move = minimax(board)
        assert board == [list(row) for row in b]  # untouched
        assert isinstance(move, tuple)
        assert move in actions(board)
        values = {action: _bf_value(child) for action, child in _bf_children(b)}
        best = max(values.values()) if _bf_turn(b) == X else min(values.values())
        assert values[move] == best == _bf_value(b), (b, move)


def test_minimax_against_itself_is_a_draw() -> None:
    board = initial_state()
    while not terminal(board):
        board = result(board, minimax(board))
    assert utility(board) == 0
    assert all(cell is not EMPTY for row in board for cell in row)


def test_minimax_never_loses_to_any_opponent() -> None:
    """Minimax as X, then as O, against every possible sequence of opponent moves."""
    for ai in (X, O):
        seen: set[Key] = set()
        stack = [initial_state()]
        while stack:
            board = stack.pop()
            if key(board) in seen:
                continue
            seen.add(key(board))
            if terminal(board):
                assert winner(board) in (ai, None)
            elif player(board) == ai:
                stack.append(result(board, minimax(board)))
            else:
                stack.extend(result(board, action) for action in actions(board))
        assert len(seen) > 100


def test_minimax_example_positions() -> None:
    assert minimax(grid("XX_OO____")) == (0, 2)  # X wins at once
    assert minimax(grid("XX__O____")) == (0, 2)  # O blocks
    assert minimax(grid("OO_XX_X__")) == (0, 2)  # O wins rather than block X
