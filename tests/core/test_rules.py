"""core.rules: turn, play, winner, outcome and validation; every valid position is reachable."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.board import (
    EMPTY,
    Board,
    CellOccupiedError,
    GameOverError,
    InvalidBoardError,
    O,
    OutOfRangeError,
    X,
)
from core.notation import format_cells, parse_cells, parse_row_col
from core.rules import (
    DRAW,
    NOT_FINISHED,
    O_WINS,
    X_WINS,
    is_over,
    legal_moves,
    lines,
    outcome,
    play,
    turn,
    validate,
    winner,
    winning_cells,
)
from core.solver import solved_table

# The eight lines of the 3×3 board, written out by hand.
LINES_3X3 = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
]


def _reference_winner(cells: str) -> str | None:
    """An independent winner check on a 9-character `XO_` string."""
    won = {cells[a] for a, b, c in LINES_3X3 if cells[a] == cells[b] == cells[c] != "_"}
    assert len(won) <= 1
    return won.pop() if won else None


def _reachable_cells() -> set[str]:
    """Every position reachable from the empty board, by a breadth-first search on strings."""
    seen = {"_" * 9}
    frontier = ["_" * 9]
    while frontier:
        nxt = []
        for cells in frontier:
            if _reference_winner(cells) or "_" not in cells:
                continue
            mark = "X" if cells.count("X") == cells.count("O") else "O"
            for i, c in enumerate(cells):
                if c == "_":
                    child = cells[:i] + mark + cells[i + 1 :]
                    if child not in seen:
                        seen.add(child)
                        nxt.append(child)
        frontier = nxt
    return seen


# --- lines and winner -------------------------------------------------------------------------


def test_lines_of_the_3x3_board() -> None:
    assert sorted(lines(3, 3)) == sorted(LINES_3X3)


def test_lines_of_larger_boards() -> None:
    # 4×4, four in a row: 4 rows, 4 columns, 2 diagonals.
    assert len(lines(4, 4)) == 10
    # 4×4, three in a row: 8 per direction horizontally and vertically, 4 per diagonal direction.
    assert len(lines(4, 3)) == 8 + 8 + 4 + 4
    assert all(len(ln) == 3 for ln in lines(4, 3))


@pytest.mark.parametrize("mark", [X, O])
@pytest.mark.parametrize("line", LINES_3X3)
def test_winner_for_every_line(line: tuple[int, ...], mark: str) -> None:
    board = Board.empty()
    for cell in line:
        board = board.with_mark(cell, mark)
    assert winner(board) == mark
    assert winning_cells(board) == frozenset(line)
    assert is_over(board)
    assert outcome(board) == (X_WINS if mark == X else O_WINS)


@pytest.mark.parametrize("line", LINES_3X3)
def test_winning_line_in_a_real_game(line: tuple[int, ...]) -> None:
    # X plays the line, O plays twice elsewhere; X wins with exactly that line on move five.
    o_moves = iter(c for c in range(9) if c not in line)
    board = Board.empty()
    for i, cell in enumerate(line):
        board = play(board, cell)
        if i < 2:
            assert winner(board) is None
            board = play(board, next(o_moves))
    assert winner(board) == X
    assert winning_cells(board) == frozenset(line)
    assert legal_moves(board) == []


@pytest.mark.parametrize(
    ("text", "cells"),
    [("XXXXOOXOO", {0, 1, 2, 3, 6}), ("XOXOXOXOX", {0, 2, 4, 6, 8})],
)
def test_two_lines_through_the_last_move_are_both_highlighted(text: str, cells: set[int]) -> None:
    board = parse_cells(text)
    assert winner(board) == X
    assert winning_cells(board) == frozenset(cells)


def test_no_winner() -> None:
    for text in ["_________", "_XXOO_OX_", "OXXXOOOXX", "XOXXOOOXX"]:
        board = parse_cells(text)
        assert winner(board) is None
        assert winning_cells(board) == frozenset()


def test_two_in_a_row_plus_the_other_mark_is_no_win() -> None:
    assert winner(parse_cells("XXO______")) is None
    assert winner(parse_cells("XOX_O_X__")) is None


# --- outcome: the seed's stage 1 examples -----------------------------------------------------

# (cells entered, coordinates typed, board after the move, the state line printed)
STAGE_1_EXAMPLES = [
    ("_XXOO_OX_", "1 1", "XXXOO_OX_", "X wins"),
    ("XX_XOXOO_", "3 3", "XX_XOXOOO", "O wins"),
    ("XX_XOXOO_", "1 3", "XXOXOXOO_", "O wins"),
    ("OX_XOOOXX", "1 3", "OXXXOOOXX", "Draw"),
    ("_XO_OX___", "3 1", "_XO_OXX__", "Game not finished"),
]


@pytest.mark.parametrize(("start", "typed", "after", "state"), STAGE_1_EXAMPLES)
def test_stage_1_examples(start: str, typed: str, after: str, state: str) -> None:
    board = parse_cells(start)
    assert outcome(board) == NOT_FINISHED
    played = play(board, board.cell_from_row_col(*parse_row_col(typed)))
    assert format_cells(played) == after
    assert outcome(played) == state
    assert is_over(played) == (state != NOT_FINISHED)


def test_outcome_words() -> None:
    assert (NOT_FINISHED, DRAW, X_WINS, O_WINS) == (
        "Game not finished",
        "Draw",
        "X wins",
        "O wins",
    )


def test_a_full_board_with_a_line_is_a_win_not_a_draw() -> None:
    board = parse_cells("XOXOXOOXX")
    assert winner(board) == X
    assert outcome(board) == X_WINS


# --- turn, legal moves, play ------------------------------------------------------------------


def test_turn() -> None:
    assert turn(Board.empty()) == X
    assert turn(parse_cells("X________")) == O
    assert turn(parse_cells("X___O____")) == X
    assert turn(parse_cells("_XXOO_OX_")) == X
    assert turn(parse_cells("XX_XOXOO_")) == O


def test_legal_moves() -> None:
    assert legal_moves(Board.empty()) == list(range(9))
    assert legal_moves(parse_cells("_XXOO_OX_")) == [0, 5, 8]
    assert legal_moves(parse_cells("XXXOO_OX_")) == []
    assert legal_moves(parse_cells("OXXXOOOXX")) == []


def test_play_returns_a_new_board_with_the_mark_of_the_player_to_move() -> None:
    board = Board.empty()
    first = play(board, 4)
    assert format_cells(first) == "____X____"
    assert board == Board.empty()
    second = play(first, 0)
    assert format_cells(second) == "O___X____"
    assert format_cells(first) == "____X____"


@pytest.mark.parametrize("cell", [1, 2, 3, 4, 6, 7])
def test_play_on_an_occupied_cell(cell: int) -> None:
    board = parse_cells("_XXOO_OX_")
    with pytest.raises(CellOccupiedError):
        play(board, cell)
    assert format_cells(board) == "_XXOO_OX_"


@pytest.mark.parametrize("cell", [-1, 9, 10, -10])
def test_play_out_of_range(cell: int) -> None:
    with pytest.raises(OutOfRangeError):
        play(Board.empty(), cell)


@pytest.mark.parametrize("text", ["XXXOO_OX_", "XX_XOXOOO", "OXXXOOOXX"])
def test_play_after_the_game_is_over(text: str) -> None:
    board = parse_cells(text)
    for cell in range(9):
        with pytest.raises((GameOverError, CellOccupiedError)):
            play(board, cell)
    for cell in board.free_cells():
        with pytest.raises(GameOverError):
            play(board, cell)


# --- validate ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "X_X_X____",  # three X, no O
        "XX_______",  # two X, no O
        "O________",  # O moved first
        "OO_X_____",  # more O than X
        "XXXXOO___",  # two more X than O
        "XXXOOO___",  # both have a line
        "XXXOOOX__",  # both have a line, counts fine
        "XXXOO_O__",  # O moved after X had won
        "XXXOOXO_O",  # O moved after X had won, four each
        "OOOXX_XX_",  # X moved after O had won
        "OOOXXX___",  # both have a line
    ],
)
def test_validate_rejects_positions_that_cannot_arise(text: str) -> None:
    with pytest.raises(InvalidBoardError):
        parse_cells(text)
    cells = tuple(EMPTY if c == "_" else c for c in text)
    with pytest.raises(InvalidBoardError):
        validate(Board(cells))


@pytest.mark.parametrize(
    "text",
    [
        "_________",
        "X________",
        "XXXOO____",  # X won on move five
        "OOOXX_X__",  # O won on move six
        "XOXOXOXOX",  # X won on the last move with both diagonals
        "XXXXOOXOO",  # X won with the top row and the left column
        "OXXXOOOXX",  # a draw
    ],
)
def test_validate_accepts_reachable_positions(text: str) -> None:
    board = parse_cells(text)
    validate(board)
    assert board.cells in solved_table()


def test_validate_rejects_two_disjoint_lines_on_a_larger_board() -> None:
    # 4×4, three in a row: X has two lines that no single last move can have completed.
    text = "XXX_" + "O_O_" + "XXX_" + "O_OO"
    board = Board(tuple(EMPTY if c == "_" else c for c in text), 4, 3)
    assert board.count(X) == board.count(O) + 1
    with pytest.raises(InvalidBoardError):
        validate(board)
    with pytest.raises(InvalidBoardError):
        parse_cells(text, k=3)


# --- every valid position is reachable --------------------------------------------------------


def test_valid_boards_are_exactly_the_reachable_ones() -> None:
    valid = set()
    for symbols in itertools.product("_XO", repeat=9):
        text = "".join(symbols)
        try:
            board = parse_cells(text)
        except InvalidBoardError:
            continue
        assert format_cells(board) == text
        valid.add(board.cells)
    assert len(valid) == 5478
    assert valid == set(solved_table())
    reachable = {tuple(EMPTY if c == "_" else c for c in text) for text in _reachable_cells()}
    assert valid == reachable


# --- properties of random games ---------------------------------------------------------------


@settings(deadline=None)  # the first example may solve the table
@given(st.permutations(range(9)))
def test_random_games(order: list[int]) -> None:
    board = Board.empty()
    marks = []
    for cell in order:
        if is_over(board):
            with pytest.raises(GameOverError):
                play(board, cell)
            break
        before = board.cells
        mover = turn(board)
        assert legal_moves(board) == board.free_cells()
        after = play(board, cell)
        assert board.cells == before  # play never changes its argument
        assert after.cells[cell] == mover
        assert sum(a != b for a, b in zip(before, after.cells, strict=True)) == 1
        marks.append(mover)
        board = after
        validate(board)
        assert parse_cells(format_cells(board)) == board
        assert board.cells in solved_table()
        w = winner(board)
        assert w == _reference_winner(format_cells(board))
        if w is None:
            assert outcome(board) == (NOT_FINISHED if board.free_cells() else DRAW)
        else:
            assert outcome(board) == (X_WINS if w == X else O_WINS)
        assert is_over(board) == (outcome(board) != NOT_FINISHED)
        assert (legal_moves(board) == []) == is_over(board)
        if w is not None:
            assert w == mover  # only the player who just moved can have won
            assert cell in winning_cells(board)
    assert marks == [X, O] * (len(marks) // 2) + [X] * (len(marks) % 2)  # turns alternate
    assert is_over(board)
