"""The board value: an immutable grid of cells, its coordinate systems and the board sizes.

Cells are indexed 0..size²-1, left to right, top to bottom. Size and line length k are data
of every board, so 3×3 with three in a row is one case of the general rules. Text forms of a
board are in core.notation; this module needs nothing from the rest of core.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

X = "X"
O = "O"
EMPTY = " "
MARKS = (X, O)
# Games of three or four players add a triangle and a square, in this order of turns.
T = "T"
S = "S"
SEAT_MARKS = (X, O, T, S)


_CELL_VALUES = frozenset((*SEAT_MARKS, EMPTY))


class BoardError(ValueError):
    """A board or coordinate that the rules cannot accept."""


class InvalidBoardError(BoardError):
    """Text or cells that do not describe a board that can arise in play."""


class MoveError(BoardError):
    """A move that cannot be played on this board.

    Move errors carry data only, no words: each front end says them its own way (the console
    in the Hyperskill texts, the bot in the user's language).
    """


class NotNumbersError(MoveError):
    """Typed coordinates that are not numbers."""

    def __init__(self) -> None:
        super().__init__()


class NumberCountError(NotNumbersError):
    """Typed coordinates that are plain numbers, but not two of them (`2 2 2`, `1`).

    A NotNumbersError still, so a front end with no words of its own for it says the same as
    for letters; the console says which is wrong (Hyperskill's stages have no text for it)."""


class OutOfRangeError(MoveError):
    """Coordinates outside the board."""

    def __init__(self, size: int = 3) -> None:
        self.size = size
        super().__init__(size)


class CellNumberError(OutOfRangeError):
    """A typed cell number outside 1..size² (`cells`): not a row and column, so the bot names
    the cell range, not the coordinates'. Still an OutOfRangeError of the board's size."""

    def __init__(self, size: int = 3) -> None:
        super().__init__(size)
        self.cells = size * size


class CellOccupiedError(MoveError):
    """A move onto a cell that already holds a mark."""

    def __init__(self) -> None:
        super().__init__()


class GameOverError(MoveError):
    """A move on a board whose game has already ended."""

    def __init__(self) -> None:
        super().__init__()


class Variant(StrEnum):
    """What a board's cells mean: data of the board, so nothing tells ultimate by its size.
    The values are the stored `games.variant`."""

    CLASSIC = "classic"  # k in a row on one board, 3×3 to 8×8 (and the games of more)
    ULTIMATE = "ultimate"  # nine 3×3 boards in a 3×3 (core.ultimate): 81 cells, shown 9×9


#: Ultimate's one shape: 9×9 cells, three in a row (within a small board, and of them).
ULTIMATE_SIZE, ULTIMATE_K = 9, 3


def other(mark: str) -> str:
    """The opponent of a mark."""
    return O if mark == X else X


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board: `cells` holds X, O or EMPTY for each cell, read as `variant` says."""

    cells: tuple[str, ...]
    size: int = 3
    k: int = 3
    variant: Variant = Variant.CLASSIC

    def __post_init__(self) -> None:
        if len(self.cells) != self.size * self.size:
            raise InvalidBoardError(f"a {self.size}x{self.size} board needs {self.size**2} cells")
        if any(c not in _CELL_VALUES for c in self.cells):
            raise InvalidBoardError("cells must be X, O, T, S or empty")
        if not 3 <= self.k <= self.size:
            raise InvalidBoardError(f"line length must be from 3 to {self.size}")
        if self.variant is Variant.ULTIMATE and (self.size, self.k) != (ULTIMATE_SIZE, ULTIMATE_K):
            raise InvalidBoardError(
                f"ultimate is {ULTIMATE_SIZE}x{ULTIMATE_SIZE}, {ULTIMATE_K} in a row"
            )

    @classmethod
    def empty(
        cls, size: int = 3, k: int | None = None, variant: Variant = Variant.CLASSIC
    ) -> Board:
        """A board with no marks on it."""
        return cls((EMPTY,) * (size * size), size, size if k is None else k, variant)

    @property
    def is_classic(self) -> bool:
        """3×3 with three in a row: the game the solved table (core.solver) covers."""
        return self.shape.is_classic

    @property
    def ply(self) -> int:
        """How many marks are on the board: the number of moves played."""
        return len(self.cells) - self.cells.count(EMPTY)

    @property
    def shape(self) -> BoardSize:
        """The size, line length and variant, without the marks."""
        return BoardSize(self.size, self.k, self.variant)

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
        return Board(tuple(cells), self.size, self.k, self.variant)

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
            raise CellNumberError(self.size)
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


# Board sizes the game offers, in one place for the AI, the bot and the tools.

SIZES = range(3, 9)  # 3×3 to 8×8: Telegram allows 8 buttons in a row


def default_k(size: int) -> int:
    """The line length for a board size: 3×3 → 3, 4×4 → 4, 5×5 → 4, 6×6 to 8×8 → 5."""
    if size not in SIZES:
        raise ValueError(f"board size must be from {SIZES.start} to {SIZES.stop - 1}")
    return {3: 3, 4: 4, 5: 4}.get(size, 5)


@dataclass(frozen=True)
class BoardSize:
    """A board size, line length k and variant, before any mark is placed."""

    size: int = 3
    k: int = 3
    variant: Variant = Variant.CLASSIC

    def empty_board(self) -> Board:
        return Board.empty(self.size, self.k, self.variant)

    @property
    def is_classic(self) -> bool:
        return self.size == 3 and self.k == 3 and self.variant is Variant.CLASSIC


CLASSIC = BoardSize()
ULTIMATE = BoardSize(ULTIMATE_SIZE, ULTIMATE_K, Variant.ULTIMATE)


def board_size(size: int, k: int | None = None) -> BoardSize | None:
    """A checked size and line length (3 ≤ k ≤ size ≤ 8); k defaults by the usual rules."""
    if size not in SIZES:  # before default_k, which raises for such sizes
        return None
    k = default_k(size) if k is None else k
    return BoardSize(size, k) if 3 <= k <= size else None
