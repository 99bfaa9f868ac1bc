"""core.positions: one answer for both kinds of board; typed moves and their words."""

from __future__ import annotations

import random

import pytest

from core.board import (
    Board,
    CellNumberError,
    CellOccupiedError,
    InvalidBoardError,
    NotNumbersError,
    OutOfRangeError,
    Variant,
)
from core.notation import format_cells
from core.positions import (
    ULTIMATE,
    board_from_text,
    cell_words,
    edge_words,
    is_ultimate,
    parse_typed,
    play,
    ultimate_board,
    variant_of,
)
from core.ultimate import rules as ultimate


def _ultimate_after(moves: int, seed: int) -> tuple[Board, int | None]:
    rng = random.Random(seed)
    board, last = ULTIMATE.empty_board(), None
    for _ in range(moves):
        cell = rng.choice(ultimate.legal_moves(ultimate_board(board, last)))
        board, last = play(board, last, cell), cell
    return board, last


@pytest.mark.parametrize("seed", range(5))
def test_the_words_of_a_hint_type_back_to_the_same_cell(seed: int) -> None:
    board, last = _ultimate_after(7, seed)
    for cell in ultimate.legal_moves(ultimate_board(board, last)):
        assert parse_typed(cell_words(board, cell), board, last) == cell
    classic = Board.empty(5, 4)
    for cell in classic.free_cells():
        assert parse_typed(cell_words(classic, cell), classic, None) == cell


def test_the_edges_name_rows_and_columns_as_a_cell_is_typed() -> None:
    for board in (Board.empty(3), Board.empty(8, 5), ULTIMATE.empty_board()):
        rows, columns = edge_words(board)
        n = len(rows)
        assert len(columns) == n == (9 if is_ultimate(board) else board.size)
        for cell in range(len(board.cells)):
            words = cell_words(board, cell)
            row, column = ultimate.grid_row_col(cell) if is_ultimate(board) else board.row_col(cell)
            assert words == f"{rows[row - 1]} {columns[column - 1]}"


def test_ultimate_typed_moves_in_every_form_and_their_mistakes() -> None:
    empty = ULTIMATE.empty_board()
    assert parse_typed("5 3", empty, None) == 4 * 9 + 2
    assert parse_typed("r5 c3", empty, None) == ultimate.grid_index(5, 3)
    assert parse_typed("R5C3", empty, None) == ultimate.grid_index(5, 3)
    board = play(empty, None, 4 * 9 + 2)  # O is sent to small board 3
    assert parse_typed("7", board, 4 * 9 + 2) == 2 * 9 + 6
    with pytest.raises(ultimate.WrongBlockError) as wrong:
        parse_typed("1 1", board, 4 * 9 + 2)
    assert wrong.value.allowed == (2,)
    with pytest.raises(ultimate.WrongBlockError):
        parse_typed("4", empty, None)  # a free choice: which small board?
    with pytest.raises(OutOfRangeError):
        parse_typed("0 5", empty, None)
    with pytest.raises(NotNumbersError):
        parse_typed("five three", empty, None)
    with pytest.raises(NotNumbersError):
        parse_typed("1 2 3", empty, None)
    taken = play(board, 4 * 9 + 2, 2 * 9 + 4)  # X is sent back to the centre board
    with pytest.raises(CellOccupiedError):
        parse_typed("5 3", taken, 2 * 9 + 4)


def test_ultimate_moves_in_the_players_digits_and_separators() -> None:
    empty = ULTIMATE.empty_board()
    five_three = 4 * 9 + 2
    for text in ("۵ ۳", "٥ ٣", "５ ３", "5,3", "5-3", "5, 3", "۵-۳"):
        assert parse_typed(text, empty, None) == five_three, text
    assert parse_typed("r۵ c۳", empty, None) == ultimate.grid_index(5, 3)
    board = play(empty, None, five_three)  # sent to small board 3
    assert parse_typed("۷", board, five_three) == 2 * 9 + 6


def test_ultimate_cell_number_out_of_range_names_the_cells() -> None:
    empty = ULTIMATE.empty_board()
    board = play(empty, None, 4 * 9 + 2)
    with pytest.raises(CellNumberError) as caught:
        parse_typed("10", board, 4 * 9 + 2)
    assert caught.value.cells == 9


def test_ultimate_is_the_variant_a_board_carries_not_its_size() -> None:
    board, _ = _ultimate_after(5, 0)
    assert is_ultimate(board) and board.shape == ULTIMATE and variant_of(board) == "ultimate"
    assert not is_ultimate(Board.empty(9, 3))  # the same shape, read as nine in a row
    assert variant_of(Board.empty()) is Variant.CLASSIC == "classic"
    stored = board_from_text(format_cells(board), 9, 3, variant="ultimate")
    assert stored == board and is_ultimate(stored)
    assert not is_ultimate(board_from_text("X" + "_" * 8, 3, 3, variant=Variant.CLASSIC))
    with pytest.raises(InvalidBoardError):
        Board.empty(8, 3, Variant.ULTIMATE)
