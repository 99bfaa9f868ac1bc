"""core.board and core.notation: the board value, its text forms and the coordinate systems."""

from __future__ import annotations

import dataclasses

import pytest

from core.board import (
    CLASSIC,
    EMPTY,
    SIZES,
    Board,
    BoardError,
    BoardSize,
    CellNumberError,
    CellOccupiedError,
    GameOverError,
    InvalidBoardError,
    MoveError,
    NotNumbersError,
    NumberCountError,
    O,
    OutOfRangeError,
    X,
    board_size,
    other,
)
from core.notation import format_cells, parse_cells, parse_row_col, parse_typed_move

# The seed's stage 1 example 1 board: `_XXOO_OX_`.
EXAMPLE = "_XXOO_OX_"


# --- exceptions -----------------------------------------------------------------------------


@pytest.mark.parametrize("error", [NotNumbersError, CellOccupiedError, GameOverError])
def test_move_errors_carry_no_words(error: type[MoveError]) -> None:
    # The words are each front end's (the console's Hyperskill texts: tests/bot/test_console.py).
    assert error().args == ()
    assert str(error()) == ""


def test_out_of_range_carries_the_size_only() -> None:
    assert OutOfRangeError().size == 3
    assert OutOfRangeError(4).size == 4
    assert OutOfRangeError(4).args == (4,)


@pytest.mark.parametrize(
    "error", [NotNumbersError, OutOfRangeError, CellOccupiedError, GameOverError]
)
def test_move_errors_are_board_errors_and_value_errors(error: type[MoveError]) -> None:
    assert issubclass(error, MoveError)
    assert issubclass(error, BoardError)
    assert issubclass(error, ValueError)


def test_invalid_board_error_is_a_board_error_but_not_a_move_error() -> None:
    assert issubclass(InvalidBoardError, BoardError)
    assert not issubclass(InvalidBoardError, MoveError)


# --- parsing cells ----------------------------------------------------------------------------


def test_parse_cells_parses_the_seed_example() -> None:
    board = parse_cells(EXAMPLE)
    assert board.cells == (EMPTY, X, X, O, O, EMPTY, O, X, EMPTY)
    assert (board.size, board.k) == (3, 3)


def test_space_and_underscore_both_mean_empty() -> None:
    assert parse_cells(" XXOO OX ") == parse_cells(EXAMPLE)
    assert parse_cells("_XXOO OX ") == parse_cells(EXAMPLE)


def test_empty_board() -> None:
    board = Board.empty()
    assert board.cells == (EMPTY,) * 9
    assert parse_cells("_________") == board
    assert parse_cells(" " * 9) == board
    assert format_cells(board) == "_________"


@pytest.mark.parametrize(
    "text", [EXAMPLE, "_________", "XX_XOXOO_", "OX_XOOOXX", "_XO_OX___", "XXXOO_OX_"]
)
def test_format_cells_round_trip(text: str) -> None:
    board = parse_cells(text)
    assert format_cells(board) == text
    assert parse_cells(format_cells(board)) == board


def test_format_cells_writes_underscores_for_spaces() -> None:
    assert format_cells(parse_cells(" XXOO OX ")) == EXAMPLE


@pytest.mark.parametrize("text", ["", "_" * 8, "_" * 10, "_" * 4, "X", "_" * 15])
def test_parse_cells_rejects_lengths_that_are_not_a_3x3_or_larger_square(text: str) -> None:
    with pytest.raises(InvalidBoardError):
        parse_cells(text)


@pytest.mark.parametrize("text", ["_XXOO_OX.", "_XXOO_OX0", "1XXOO_OX_", "-XXOO_OX_", "_XXQO_OX_"])
def test_parse_cells_rejects_unknown_symbols(text: str) -> None:
    with pytest.raises(InvalidBoardError):
        parse_cells(text)


def test_parse_cells_validates_the_position() -> None:
    with pytest.raises(InvalidBoardError):
        parse_cells("XXX______")  # three X, no O


def test_parse_cells_builds_larger_boards() -> None:
    board = parse_cells("X" + "_" * 15)
    assert (board.size, board.k) == (4, 4)
    assert parse_cells("X" + "_" * 15, k=3).k == 3


# --- the value --------------------------------------------------------------------------------


def test_board_is_immutable_and_hashable() -> None:
    board = parse_cells(EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        board.cells = (EMPTY,) * 9  # type: ignore[misc]
    assert hash(board) == hash(parse_cells(EXAMPLE))
    assert len({board, parse_cells(EXAMPLE), Board.empty()}) == 2


@pytest.mark.parametrize(
    ("cells", "size", "k"),
    [
        ((EMPTY,) * 8, 3, 3),
        ((EMPTY,) * 10, 3, 3),
        ((EMPTY,) * 8 + ("_",), 3, 3),
        ((EMPTY,) * 8 + (None,), 3, 3),
        ((EMPTY,) * 8 + ("x",), 3, 3),
        ((EMPTY,) * 9, 3, 2),
        ((EMPTY,) * 9, 3, 4),
    ],
)
def test_constructor_rejects_bad_cells_and_line_lengths(
    cells: tuple[str, ...], size: int, k: int
) -> None:
    with pytest.raises(InvalidBoardError):
        Board(cells, size, k)


def test_free_cells_count_and_indexing() -> None:
    board = parse_cells(EXAMPLE)
    assert board.free_cells() == [0, 5, 8]
    assert board.count(X) == 3
    assert board.count(O) == 3
    assert board.count(EMPTY) == 3
    assert board[1] == X
    assert board[3] == O
    assert board[0] == EMPTY


def test_ply_counts_the_marks() -> None:
    assert Board.empty().ply == 0
    assert parse_cells(EXAMPLE).ply == 6
    assert parse_cells("X" + "_" * 24, k=4).ply == 1


@pytest.mark.parametrize(
    ("size", "k", "classic"), [(3, 3, True), (4, 3, False), (4, 4, False), (8, 5, False)]
)
def test_shape_and_is_classic(size: int, k: int, classic: bool) -> None:
    board = Board.empty(size, k)
    assert board.shape == BoardSize(size, k)
    assert board.is_classic is board.shape.is_classic is classic
    assert board.shape.empty_board() == board


def test_with_mark_returns_a_new_board() -> None:
    board = parse_cells(EXAMPLE)
    after = board.with_mark(0, X)
    assert format_cells(after) == "XXXOO_OX_"
    assert format_cells(board) == EXAMPLE
    assert after is not board


def test_other() -> None:
    assert other(X) == O
    assert other(O) == X


# --- board sizes ------------------------------------------------------------------------------


def test_sizes_are_3_to_8_and_classic_is_3x3() -> None:
    assert list(SIZES) == [3, 4, 5, 6, 7, 8]
    assert (CLASSIC.size, CLASSIC.k) == (3, 3) and CLASSIC.is_classic
    assert CLASSIC.empty_board() == Board.empty()


@pytest.mark.parametrize(
    ("size", "k", "expected"),
    [
        (3, None, BoardSize(3, 3)),
        (5, None, BoardSize(5, 4)),
        (8, None, BoardSize(8, 5)),
        (6, 4, BoardSize(6, 4)),
        (8, 8, BoardSize(8, 8)),
        (4, 3, BoardSize(4, 3)),
        (5, 6, None),
        (5, 2, None),
        (2, None, None),  # outside SIZES: None, not default_k's ValueError
        (9, None, None),
        (9, 5, None),
        (0, 3, None),
    ],
)
def test_board_size_checks_size_and_k(size: int, k: int | None, expected: BoardSize | None) -> None:
    assert board_size(size, k) == expected


# --- coordinates ------------------------------------------------------------------------------

ROW_COL = {
    (1, 1): 0,
    (1, 2): 1,
    (1, 3): 2,
    (2, 1): 3,
    (2, 2): 4,
    (2, 3): 5,
    (3, 1): 6,
    (3, 2): 7,
    (3, 3): 8,
}


@pytest.mark.parametrize(("row_col", "cell"), ROW_COL.items())
def test_row_col_first_number_is_the_row_from_the_top(row_col: tuple[int, int], cell: int) -> None:
    board = Board.empty()
    assert board.cell_from_row_col(*row_col) == cell
    assert board.row_col(cell) == row_col


def test_row_col_of_the_seed_table() -> None:
    # "(1, 1) is top-left, (3, 3) bottom-right; the first coordinate goes from top to bottom."
    board = Board.empty()
    assert format_cells(board.with_mark(board.cell_from_row_col(1, 1), X)) == "X________"
    assert format_cells(board.with_mark(board.cell_from_row_col(3, 1), X)) == "______X__"
    assert format_cells(board.with_mark(board.cell_from_row_col(1, 3), X)) == "__X______"
    assert format_cells(board.with_mark(board.cell_from_row_col(3, 3), X)) == "________X"


@pytest.mark.parametrize("row_col", [(0, 1), (1, 0), (4, 1), (1, 4), (-1, 2), (0, 0), (4, 4)])
def test_row_col_out_of_range(row_col: tuple[int, int]) -> None:
    with pytest.raises(OutOfRangeError) as caught:
        Board.empty().cell_from_row_col(*row_col)
    assert caught.value.size == 3


@pytest.mark.parametrize("cell", [-1, 9, 100])
def test_cell_to_coordinates_out_of_range(cell: int) -> None:
    board = Board.empty()
    with pytest.raises(OutOfRangeError):
        board.row_col(cell)
    with pytest.raises(OutOfRangeError):
        board.ij(cell)


@pytest.mark.parametrize("number", range(1, 10))
def test_cell_numbers_one_to_nine(number: int) -> None:
    assert Board.empty().cell_from_number(number) == number - 1


@pytest.mark.parametrize("number", [-1, 0, 10])
def test_cell_numbers_out_of_range(number: int) -> None:
    with pytest.raises(OutOfRangeError):
        Board.empty().cell_from_number(number)


@pytest.mark.parametrize("cell", range(9))
def test_cs50_coordinates_are_row_and_column_from_zero(cell: int) -> None:
    board = Board.empty()
    i, j = board.ij(cell)
    assert (i, j) == (cell // 3, cell % 3)
    assert board.cell_from_ij(i, j) == cell
    assert board.row_col(cell) == (i + 1, j + 1)


@pytest.mark.parametrize("ij", [(-1, 0), (0, -1), (3, 0), (0, 3), (3, 3)])
def test_cs50_coordinates_out_of_range(ij: tuple[int, int]) -> None:
    with pytest.raises(OutOfRangeError):
        Board.empty().cell_from_ij(*ij)


def test_coordinates_on_a_4x4_board() -> None:
    board = Board.empty(4)
    assert board.cell_from_row_col(4, 4) == 15
    assert board.cell_from_number(16) == 15
    assert board.cell_from_ij(3, 0) == 12
    with pytest.raises(OutOfRangeError) as caught:
        board.cell_from_row_col(5, 1)
    assert caught.value.size == 4


# --- typed coordinates ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 1", (1, 1)),
        ("3 1", (3, 1)),
        ("1 3", (1, 3)),
        ("2 3\n", (2, 3)),
        ("  3   2  ", (3, 2)),
        ("\t2\t1\r\n", (2, 1)),
        ("01 03", (1, 3)),
    ],
)
def test_parse_row_col_accepts_two_numbers(text: str, expected: tuple[int, int]) -> None:
    assert parse_row_col(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "one",
        "one three",
        "1",
        "1 2 3",
        "",
        "   ",
        "+1 2",
        "1 +2",
        "1 one",
        "4 one",
        "1.0 2",
        "1,1",
        "1,2 3",
        "1_0 1",
        "- 1",
        "١ ٢",  # Arabic-Indic digits
        "１ ２",  # full-width digits
        "² 1",  # superscript two
        "x 1",
    ],
)
def test_parse_row_col_wants_two_plain_numbers(text: str) -> None:
    with pytest.raises(NotNumbersError):
        parse_row_col(text)


@pytest.mark.parametrize("text", ["1", "1 2 3", "2 2 2", " 3  1 1 ", "-1 2 3"])
def test_numbers_but_not_two_are_a_number_count_error(text: str) -> None:
    # Still a NotNumbersError, so a front end without words for it says "enter numbers".
    with pytest.raises(NumberCountError):
        parse_row_col(text)


@pytest.mark.parametrize("text", ["one", "1 one", "", "1 2 x", "+1 2 3"])
def test_not_all_numbers_is_no_number_count_error(text: str) -> None:
    with pytest.raises(NotNumbersError) as caught:
        parse_row_col(text)
    assert type(caught.value) is NotNumbersError


@pytest.mark.parametrize("text", ["4 1", "1 4", "0 1", "1 0", "-1 2", "2 -1", "10 10", "-0 1"])
def test_parse_row_col_out_of_range(text: str) -> None:
    with pytest.raises(OutOfRangeError) as caught:
        parse_row_col(text)
    assert caught.value.size == 3


def test_parse_row_col_range_follows_size() -> None:
    assert parse_row_col("4 4", size=4) == (4, 4)
    with pytest.raises(OutOfRangeError) as caught:
        parse_row_col("5 1", size=4)
    assert caught.value.size == 4


@pytest.mark.parametrize(
    ("text", "cell"),
    [("1", 0), ("5", 4), ("9", 8), (" 6 ", 5), ("1 1", 0), ("3 3", 8), ("2 1", 3), (" 1  2 ", 1)],
)
def test_parse_typed_move_accepts_a_cell_number_or_row_col(text: str, cell: int) -> None:
    assert parse_typed_move(text, Board.empty()) == cell


@pytest.mark.parametrize("text", ["2", "3", "1 2", "1 3", "2 1", "3 2"])
def test_parse_typed_move_rejects_occupied_cells(text: str) -> None:
    # EXAMPLE: cells 1, 2, 3, 4, 6, 7 are taken.
    with pytest.raises(CellOccupiedError):
        parse_typed_move(text, parse_cells(EXAMPLE))


@pytest.mark.parametrize("text", ["1", "6", "9", "1 1", "2 3", "3 3"])
def test_parse_typed_move_accepts_free_cells(text: str) -> None:
    assert parse_typed_move(text, parse_cells(EXAMPLE)) in (0, 5, 8)


@pytest.mark.parametrize("text", ["0", "10", "-5", "4 1", "1 0"])
def test_parse_typed_move_out_of_range(text: str) -> None:
    with pytest.raises(OutOfRangeError):
        parse_typed_move(text, Board.empty())


@pytest.mark.parametrize(
    "text", ["one", "one three", "", "+5", "1 2 3", "五", "1 x", "² 1", "1,,1", "1--1", ","]
)
def test_parse_typed_move_not_numbers(text: str) -> None:
    with pytest.raises(NotNumbersError):
        parse_typed_move(text, Board.empty())


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("۱ ۱", 0),  # Persian digits
        ("٣ ٣", 8),  # Arabic-Indic digits
        ("１ １", 0),  # full-width digits
        ("١ ٢", 1),
        ("٥", 4),  # one cell number
        ("۹", 8),
        ("1,1", 0),
        ("1-1", 0),
        ("1, 1", 0),
        ("1 ,2", 1),
        ("2 - 3", 5),
        ("۲،۳", 5),  # the Persian comma
        ("２，３", 5),  # the full-width comma
        ("２－３", 5),  # the full-width hyphen
    ],
)
def test_parse_typed_move_reads_the_players_digits_and_separators(text: str, cell: int) -> None:
    assert parse_typed_move(text, Board.empty()) == cell


def test_a_sign_is_no_separator() -> None:
    # `-1 2` and `1 -2` are out of range, as before: the minus is not read as a hyphen.
    for text in ("-1 2", "1 -2", "-1-2"):
        with pytest.raises(OutOfRangeError) as caught:
            parse_typed_move(text, Board.empty())
        assert not isinstance(caught.value, CellNumberError), text


@pytest.mark.parametrize("text", ["0", "26", "-5", "۰", "٢٦"])
def test_a_cell_number_out_of_range_names_the_cells(text: str) -> None:
    board = Board.empty(5, 4)
    with pytest.raises(CellNumberError) as caught:
        parse_typed_move(text, board)
    assert caught.value.cells == 25 and caught.value.size == 5


@pytest.mark.parametrize("text", ["6 1", "0 1", "1-6"])
def test_row_and_column_out_of_range_is_no_cell_number(text: str) -> None:
    with pytest.raises(OutOfRangeError) as caught:
        parse_typed_move(text, Board.empty(5, 4))
    assert not isinstance(caught.value, CellNumberError)


def test_parse_typed_move_checks_range_before_occupancy() -> None:
    full = parse_cells("OXXXOOOXX")
    with pytest.raises(OutOfRangeError):
        parse_typed_move("4 1", full)
    with pytest.raises(NotNumbersError):
        parse_typed_move("one", full)
