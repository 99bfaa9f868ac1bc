"""The board value: an immutable grid of cells, plus its coordinate systems.

Cells are indexed 0..size²-1, left to right, top to bottom. Size and line length k are data
of every board, so 3×3 with three in a row is one case of the general rules.
"""

from __future__ import annotations

from dataclasses import dataclass

X = "X"
O = "O"
EMPTY = " "
MARKS = (X, O)


class BoardError(ValueError):
    """A board or coordinate that the rules cannot accept."""


class InvalidBoardError(BoardError):
    """Text or cells that do not describe a board that can arise in play."""


class MoveError(BoardError):
    """A move that cannot be played on this board."""


class NotNumbersError(MoveError):
    """Typed coordinates that are not numbers."""

    def __init__(self) -> None:
        super().__init__("You should enter numbers!")


class OutOfRangeError(MoveError):
    """Coordinates outside the board."""

    def __init__(self, size: int = 3) -> None:
        self.size = size
        super().__init__(f"Coordinates should be from 1 to {size}!")


class CellOccupiedError(MoveError):
    """A move onto a cell that already holds a mark."""

    def __init__(self) -> None:
        super().__init__("This cell is occupied! Choose another one!")


class GameOverError(MoveError):
    """A move on a board whose game has already ended."""

    def __init__(self) -> None:
        super().__init__("The game is over.")


def other(mark: str) -> str:
    """The opponent of a mark."""
    return O if mark == X else X


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board: `cells` holds X, O or EMPTY for each cell."""

    cells: tuple[str, ...]
    size: int = 3
    k: int = 3

    def __post_init__(self) -> None:
        if len(self.cells) != self.size * self.size:
            raise InvalidBoardError(f"a {self.size}x{self.size} board needs {self.size**2} cells")
        if any(c not in (X, O, EMPTY) for c in self.cells):
            raise InvalidBoardError("cells must be X, O or empty")
        if not 3 <= self.k <= self.size:
            raise InvalidBoardError(f"line length must be from 3 to {self.size}")

    @classmethod
    def empty(cls, size: int = 3, k: int | None = None) -> Board:
        """A board with no marks on it."""
        return cls((EMPTY,) * (size * size), size, size if k is None else k)

    @classmethod
    def from_cells(cls, text: str, k: int | None = None) -> Board:
        """Parse Hyperskill cells such as `_XXOO_OX_` (`_` or space is empty).

        The size follows from the length (9 → 3×3). Positions that cannot arise in play are
        rejected (see `core.rules.validate`).
        """
        from core.rules import validate

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
        board = cls(tuple(cells), size, size if k is None else k)
        validate(board)
        return board

    def to_cells(self) -> str:
        """Hyperskill cells, `_` for empty: the inverse of `from_cells`."""
        return "".join("_" if c == EMPTY else c for c in self.cells)

    def __getitem__(self, cell: int) -> str:
        return self.cells[cell]

    def free_cells(self) -> list[int]:
        """Indexes of the empty cells, in order."""
        return [i for i, c in enumerate(self.cells) if c == EMPTY]

    def count(self, mark: str) -> int:
        return self.cells.count(mark)

    def with_mark(self, cell: int, mark: str) -> Board:
        """A copy with `mark` placed at `cell` (no rule checks: see `core.rules.play`)."""
        cells = list(self.cells)
        cells[cell] = mark
        return Board(tuple(cells), self.size, self.k)

    # Coordinate systems. Each converter checks the range and raises OutOfRangeError.

    def cell_from_row_col(self, row: int, col: int) -> int:
        """Hyperskill coordinates: row and column from 1, `1 1` is top-left."""
        if not (1 <= row <= self.size and 1 <= col <= self.size):
            raise OutOfRangeError(self.size)
        return (row - 1) * self.size + (col - 1)

    def row_col(self, cell: int) -> tuple[int, int]:
        """The Hyperskill (row, column) of a cell, both from 1."""
        self._check_cell(cell)
        return cell // self.size + 1, cell % self.size + 1

    def cell_from_number(self, number: int) -> int:
        """Cell numbers 1..size², left to right, top to bottom."""
        if not 1 <= number <= self.size * self.size:
            raise OutOfRangeError(self.size)
        return number - 1

    def cell_from_ij(self, i: int, j: int) -> int:
        """CS50 coordinates: (row, column) from 0."""
        if not (0 <= i < self.size and 0 <= j < self.size):
            raise OutOfRangeError(self.size)
        return i * self.size + j

    def ij(self, cell: int) -> tuple[int, int]:
        """The CS50 (i, j) of a cell, both from 0."""
        self._check_cell(cell)
        return divmod(cell, self.size)

    def _check_cell(self, cell: int) -> None:
        if not 0 <= cell < self.size * self.size:
            raise OutOfRangeError(self.size)


def parse_row_col(text: str, size: int = 3) -> tuple[int, int]:
    """Parse typed `row col` (extra spaces are fine) into two numbers in 1..size.

    Raises NotNumbersError for anything but two integers, OutOfRangeError outside the board.
    """
    parts = text.split()
    if len(parts) != 2 or not all(_is_integer(p) for p in parts):
        raise NotNumbersError()
    row, col = int(parts[0]), int(parts[1])
    if not (1 <= row <= size and 1 <= col <= size):
        raise OutOfRangeError(size)
    return row, col


def parse_typed_move(text: str, board: Board) -> int:
    """A chat move: `row col` or one cell number 1..size². Returns a free cell index.

    Raises NotNumbersError, OutOfRangeError or CellOccupiedError with the Hyperskill texts.
    """
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
