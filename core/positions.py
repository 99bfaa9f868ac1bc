"""What a game's board means: k in a row on one board (3×3 to 8×8), or ultimate tic-tac-toe.

Both live in a `GameView` as a `core.board.Board`: ultimate as its 81 cells in
`core.ultimate.rules`'s order (small board by small board), marked `Variant.ULTIMATE` (shape
9×9, three in a row), with the last move's cell beside it. Everything that plays, judges or
thinks asks here, so that the rest of the bot handles one kind of board."""

from __future__ import annotations

import random
import re

from core.ai import Level
from core.ai import choose_move as classic_move
from core.board import (
    EMPTY,
    ULTIMATE,
    Board,
    BoardSize,
    CellNumberError,
    MoveError,
    NotNumbersError,
    Variant,
)
from core.notation import parse_cells, parse_typed_move, plain_digits
from core.rules import play as classic_play
from core.rules import winner as classic_winner
from core.search.engine import DEFAULT_BUDGET as CLASSIC_BUDGET
from core.ultimate import ai as ultimate_ai
from core.ultimate import rules as ultimate
from core.ultimate.ai import DEFAULT_BUDGET


def is_ultimate(board: Board | BoardSize) -> bool:
    return board.variant is Variant.ULTIMATE


def board_from_text(
    text: str, size: int | None, k: int | None, seats: int = 2, *, variant: Variant | str
) -> Board:
    """A stored board: `_` for empty, row by row, or ultimate's cells in their own order
    (`variant`: the stored `games.variant`). Two players' boards are checked as positions of
    play; ultimate's, and those of three or four players, have rules of their own."""
    variant = Variant(variant)
    if variant is Variant.ULTIMATE:
        return Board(_cells(text), ULTIMATE.size, ULTIMATE.k, variant)
    if seats > 2:
        side = size or round(len(text) ** 0.5)
        return Board(_cells(text), side, k or 3)
    return parse_cells(text, k=k or None)


def _cells(text: str) -> tuple[str, ...]:
    return tuple(EMPTY if c == "_" else c for c in text)


def variant_of(board: Board) -> Variant:
    """The `games.variant` column's value for a board."""
    return board.variant


def ultimate_board(board: Board, last_cell: int | None) -> ultimate.UltimateBoard:
    return ultimate.UltimateBoard(board.cells, last_cell)


def cell_words(board: Board, cell: int) -> str:
    """A cell as a player would type it: `2 3` (row, column), on ultimate `r5 c3` (row and
    column of the 9×9, since `5 3` there means small board 5, cell 3)."""
    if is_ultimate(board):
        return "r{} c{}".format(*ultimate.grid_row_col(cell))
    return "{} {}".format(*board.row_col(cell))


def edge_words(board: Board) -> tuple[list[str], list[str]]:
    """The words of `cell_words` for each row (top to bottom) and each column (left to
    right), to write on the board's edges: `1` … `size`, on ultimate `r1` … `r9` and `c1` …
    `c9`. A cell's words are its row's and its column's, apart by a space."""
    if is_ultimate(board):
        lines = range(1, ultimate.SIZE + 1)
        return [f"r{n}" for n in lines], [f"c{n}" for n in lines]
    lines = range(1, board.size + 1)
    return [str(n) for n in lines], [str(n) for n in lines]


def play(board: Board, last_cell: int | None, cell: int) -> Board:
    """The board after the player to move marks `cell`; raises core's MoveError subclasses
    (`ultimate.WrongBlockError` for a cell outside the small boards in play)."""
    if not is_ultimate(board):
        return classic_play(board, cell)
    after = ultimate.play(ultimate_board(board, last_cell), cell)
    return Board(after.cells, board.size, board.k, board.variant)


def winner(board: Board, last_cell: int | None) -> str | None:
    if not is_ultimate(board):
        return classic_winner(board)
    return ultimate.winner(ultimate_board(board, last_cell))


def is_full(board: Board, last_cell: int | None) -> bool:
    """No move is left (and nobody has won): a draw."""
    if not is_ultimate(board):
        return EMPTY not in board.cells
    return not ultimate.playable_blocks(ultimate_board(board, last_cell))


def move_error(board: Board, last_cell: int | None, cell: int) -> MoveError | None:
    """Why `cell` cannot be played now, or None."""
    try:
        play(board, last_cell, cell)
    except MoveError as error:
        return error
    return None


def choose_move(
    level: Level,
    board: Board,
    last_cell: int | None,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
) -> int:
    """The AI's move at `level` on either kind of board. `time_budget` is the ultimate search's;
    on the classic boards it is only a ceiling: hard needs no more than CLASSIC_BUDGET of CPU
    there (bench/ai.py --strength), and more would only keep the player waiting."""
    if not is_ultimate(board):
        budget = min(time_budget, CLASSIC_BUDGET)
        return classic_move(level, board, rng, time_budget=budget)
    return ultimate_ai.choose_move(
        level, ultimate_board(board, last_cell), rng, time_budget=time_budget
    )


_ROW_COL = re.compile(r"r\s*(\d+)\s*,?\s*c\s*(\d+)")


def parse_typed(text: str, board: Board, last_cell: int | None) -> int:
    """A typed move's cell: `row col` or a cell number on a classic board; on ultimate
    `5 3` (small board 5, cell 3), `r5 c3` (row 5, column 3 of the 9×9 grid), or one cell
    number of the only small board in play; in any decimal digits, `5,3` and `5-3` too (see
    `core.notation.plain_digits`). Raises core's MoveError subclasses."""
    if not is_ultimate(board):
        return parse_typed_move(text, board)
    words = plain_digits(text).strip().lower()
    row_col = _ROW_COL.fullmatch(words)
    numbers = words.replace(",", " ").split()
    if row_col is not None and words.isascii():
        cell = ultimate.grid_index(int(row_col.group(1)), int(row_col.group(2)))
    elif not numbers or len(numbers) > 2 or not all(n.isascii() and n.isdigit() for n in numbers):
        raise NotNumbersError()
    elif len(numbers) == 2:
        cell = ultimate.index_from_block_cell(int(numbers[0]), int(numbers[1]))
    else:
        blocks = ultimate.playable_blocks(ultimate_board(board, last_cell))
        if len(blocks) != 1:
            raise ultimate.WrongBlockError(blocks)  # which small board? the player must say
        if not 1 <= int(numbers[0]) <= 9:
            raise CellNumberError(3)  # a cell of the small board: 1 to 9
        cell = ultimate.index_from_block_cell(blocks[0] + 1, int(numbers[0]))
    error = move_error(board, last_cell, cell)
    if error is not None:
        raise error
    return cell
