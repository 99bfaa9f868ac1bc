"""Text to and from boards: Hyperskill cells (`_XXOO_OX_`) and typed moves.

Kept apart from core.board so that the board value needs nothing from the rules: parsing
cells validates the position with `core.rules.validate`, and the rules build on the board.
"""

from __future__ import annotations

import re
import unicodedata

from core.board import (
    EMPTY,
    MARKS,
    Board,
    CellOccupiedError,
    InvalidBoardError,
    NotNumbersError,
    NumberCountError,
    OutOfRangeError,
)
from core.rules import validate


def parse_cells(text: str, k: int | None = None) -> Board:
    """Parse Hyperskill cells such as `_XXOO_OX_` (`_` or space is empty).

    The size follows from the length (9 → 3×3), k defaults to the size. Positions that cannot
    arise in play are rejected (see `core.rules.validate`).
    """
    size = round(len(text) ** 0.5)
    if size * size != len(text) or size < 3:
        raise InvalidBoardError(f"expected a square number of cells, got {len(text)}")
    cells = []
    for ch in text.upper():
        if ch in "_ ":
            cells.append(EMPTY)
        elif ch in MARKS:
            cells.append(ch)
        else:
            raise InvalidBoardError(f"unexpected cell {ch!r}; use X, O, _ or space")
    board = Board(tuple(cells), size, size if k is None else k)
    validate(board)
    return board


def format_cells(board: Board) -> str:
    """Hyperskill cells, `_` for empty: the inverse of `parse_cells`."""
    return "".join("_" if c == EMPTY else c for c in board.cells)


def parse_row_col(text: str, size: int = 3) -> tuple[int, int]:
    """Parse typed `row col` (extra spaces are fine) into two numbers in 1..size.

    Raises NotNumbersError for anything but two integers (NumberCountError, one of them, for
    plain integers of another count), OutOfRangeError outside the board.
    """
    parts = text.split()
    if not parts or not all(_is_integer(p) for p in parts):
        raise NotNumbersError()
    if len(parts) != 2:
        raise NumberCountError()
    row, col = int(parts[0]), int(parts[1])
    if not (1 <= row <= size and 1 <= col <= size):
        raise OutOfRangeError(size)
    return row, col


#: Between two numbers of a chat move: a comma (`1,1`, `1, 1`; also the Arabic and the
#: full-width one) or a hyphen, tight or spaced on both sides (`1-1`, `1 - 1`), so that the
#: minus of `1 -1` stays a sign.
_SEPARATOR = re.compile(r"(?<=[0-9])(?:\s*[,\u060c\uff0c]\s*|[\-\uff0d]|\s+[\-\uff0d]\s+)(?=[0-9])")


def plain_digits(text: str) -> str:
    """A chat move as the player typed it, in ASCII digits and spaces: any Unicode decimal
    digit (Persian `۱`, Arabic-Indic `٣`, full-width `１`) becomes its ASCII digit, and a comma
    or hyphen between two numbers a space. A sign before a number stays (`-1 2` is out of
    range, not `1 2`). The console does not call this: it keeps Hyperskill's plain numbers."""
    digits = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)
    return _SEPARATOR.sub(" ", digits)


def parse_typed_move(text: str, board: Board) -> int:
    """A chat move: `row col` or one cell number 1..size², in any decimal digits, the two
    numbers apart by spaces, a comma or a hyphen (see `plain_digits`). Returns a free cell.

    Raises NotNumbersError, OutOfRangeError (CellNumberError for a cell number) or
    CellOccupiedError; the words for them are the caller's (the bot's locale's).
    """
    text = plain_digits(text)
    parts = text.split()
    if len(parts) == 1 and _is_integer(parts[0]):
        cell = board.cell_from_number(int(parts[0]))
    else:
        cell = board.cell_from_row_col(*parse_row_col(text, board.size))
    if board[cell] != EMPTY:
        raise CellOccupiedError()
    return cell


def _is_integer(text: str) -> bool:
    # int() accepts "+1", "1_0" and non-ASCII digits; a coordinate is plain ASCII digits.
    body = text[1:] if text[:1] == "-" else text
    return body.isascii() and body.isdigit()
