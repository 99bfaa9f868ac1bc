"""Ultimate tic-tac-toe: nine small boards in a 3×3, the rules and the coordinates.

The game: X starts anywhere. The cell a player marks (its position 0..8 within its small
board) sends the opponent to the small board of the same position; when that small board is
closed (won or full), the opponent may play in any open small board. Three in a row wins a
small board and closes it; a full small board without a line is drawn (closed, nobody's). Three
won small boards in a row, in the usual eight lines, win the game; when no small board is open
and nobody has such a line, the game is drawn.

Cells are numbered `block * 9 + cell`: `block` 0..8 is the small board, row-major in the big
3×3, and `cell` 0..8 the cell within it, row-major. The user sees a 9×9 grid; `grid_index`
and `grid_row_col` convert its rows and columns (1..9), `index_from_block_cell` converts the
typed `5 3` (small board 5, cell 3, both from 1).

The board value holds the 81 cells and the last move (it decides where the next move goes).
Small boards are read through 9-bit masks (bit i set = cell i holds the mark), and their
results are memoized per 9-cell tuple, so the rules stay cheap for rendering and the bot. The
AI (core.ultimate.ai) searches on `Position`, a mutable copy of a board in those masks, where
every rule question is a table lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from core.board import (
    EMPTY,
    ULTIMATE_SIZE,
    CellOccupiedError,
    GameOverError,
    InvalidBoardError,
    MoveError,
    O,
    OutOfRangeError,
    X,
    other,
)
from core.rules import DRAW, NOT_FINISHED, O_WINS, X_WINS

SIZE = ULTIMATE_SIZE  # rows and columns of the whole grid (9), the size OutOfRangeError reports
CELLS = SIZE * SIZE
DRAWN = "draw"  # block_result of a full small board without a line

# The eight lines of a 3×3, for a small board's cells and for the big board's blocks alike.
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINE_MASKS = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in LINES)
FULL = 0x1FF  # all nine bits: a full small board, or every block closed

# Tables over the 512 masks of a 3×3. MASK_CELLS: the set bits, in order.
# HAS_LINE: does the mask hold a line? COMPLETING: the cells outside the mask that would
# complete a line with it (free or not: the caller keeps the free ones).
MASK_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(9) if mask >> i & 1) for mask in range(512)
)
HAS_LINE: tuple[bool, ...] = tuple(
    any(mask & line == line for line in LINE_MASKS) for mask in range(512)
)
COMPLETING: tuple[int, ...] = tuple(
    sum(1 << i for i in range(9) if not mask >> i & 1 and HAS_LINE[mask | 1 << i])
    for mask in range(512)
)


class WrongBlockError(MoveError):
    """A move outside the small board(s) the player may play in.

    `allowed` holds those blocks (0..8, as `playable_blocks` gives them); data only, no words.
    """

    def __init__(self, allowed: tuple[int, ...]) -> None:
        self.allowed = allowed
        super().__init__(allowed)


@dataclass(frozen=True, slots=True)
class UltimateBoard:
    """An immutable position: 81 cells of X, O or EMPTY (see the module docstring for their
    order) and the index of the last move, None before the first."""

    cells: tuple[str, ...]
    last: int | None = None

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise InvalidBoardError(f"an ultimate board needs {CELLS} cells")
        if any(c not in (X, O, EMPTY) for c in self.cells):
            raise InvalidBoardError("cells must be X, O or empty")
        if self.last is not None:
            if not 0 <= self.last < CELLS:
                raise InvalidBoardError("the last move must be a cell from 0 to 80")
            # The next move's block follows from the last move: it must be the mark of the
            # player who moved last, or the board would send the wrong player.
            if self.cells[self.last] != other(turn(self)):
                raise InvalidBoardError("the last move must hold the last player's mark")

    @classmethod
    def empty(cls) -> UltimateBoard:
        """The board before the first move."""
        return cls((EMPTY,) * CELLS)

    @property
    def ply(self) -> int:
        """How many marks are on the board: the number of moves played."""
        return CELLS - self.cells.count(EMPTY)

    def __getitem__(self, index: int) -> str:
        return self.cells[index]


# --- coordinates ---------------------------------------------------------------------------


def grid_index(row: int, col: int) -> int:
    """The index of the cell at `row`, `col` (both 1..9) of the 9×9 grid the user sees."""
    if not (1 <= row <= SIZE and 1 <= col <= SIZE):
        raise OutOfRangeError(SIZE)
    r, c = row - 1, col - 1
    return (r // 3 * 3 + c // 3) * 9 + r % 3 * 3 + c % 3


def grid_row_col(index: int) -> tuple[int, int]:
    """The (row, column) of an index on the 9×9 grid, both from 1: the inverse of grid_index."""
    if not 0 <= index < CELLS:
        raise OutOfRangeError(SIZE)
    block, cell = divmod(index, 9)
    return block // 3 * 3 + cell // 3 + 1, block % 3 * 3 + cell % 3 + 1


def index_from_block_cell(block_number: int, cell_number: int) -> int:
    """The index of cell `cell_number` of small board `block_number`, both 1..9."""
    if not (1 <= block_number <= SIZE and 1 <= cell_number <= SIZE):
        raise OutOfRangeError(SIZE)
    return (block_number - 1) * 9 + cell_number - 1


def block_cell_numbers(index: int) -> tuple[int, int]:
    """The (small board, cell) numbers of an index, both from 1: the inverse of
    index_from_block_cell."""
    if not 0 <= index < CELLS:
        raise OutOfRangeError(SIZE)
    block, cell = divmod(index, 9)
    return block + 1, cell + 1


# --- text for storage ----------------------------------------------------------------------

_FROM_CHAR = {"X": X, "O": O, "_": EMPTY}
_TO_CHAR = {X: "X", O: "O", EMPTY: "_"}


def to_text(board: UltimateBoard) -> str:
    """The 81 cells in index order as `X`, `O` and `_` (the last move is stored apart)."""
    return "".join(_TO_CHAR[c] for c in board.cells)


def from_text(text: str, last: int | None = None) -> UltimateBoard:
    """The board of `to_text`'s text and the stored last move; InvalidBoardError otherwise."""
    if len(text) != CELLS:
        raise InvalidBoardError(f"an ultimate board needs {CELLS} cells, got {len(text)}")
    try:
        cells = tuple(_FROM_CHAR[ch] for ch in text)
    except KeyError as error:
        raise InvalidBoardError(f"unexpected cell {error.args[0]!r}; use X, O or _") from None
    return UltimateBoard(cells, last)


# --- small boards --------------------------------------------------------------------------


def turn(board: UltimateBoard) -> str:
    """The mark to move: X starts; with one extra X on the board it is O's turn."""
    return X if board.cells.count(X) == board.cells.count(O) else O


def block_cells(board: UltimateBoard, block: int) -> tuple[str, ...]:
    """The nine cells of small board `block` (0..8), row-major."""
    if not 0 <= block < 9:
        raise OutOfRangeError(SIZE)
    return board.cells[block * 9 : block * 9 + 9]


def _mask(cells: tuple[str, ...], mark: str) -> int:
    return sum(1 << i for i, c in enumerate(cells) if c == mark)


@cache  # at most 3⁹ distinct small boards
def _small_result(cells: tuple[str, ...]) -> str | None:
    for mark in (X, O):
        if HAS_LINE[_mask(cells, mark)]:
            return mark
    return DRAWN if EMPTY not in cells else None


def block_result(board: UltimateBoard, block: int) -> str | None:
    """X or O for a won small board, DRAWN for a full one without a line, None while open."""
    return _small_result(block_cells(board, block))


@lru_cache(maxsize=1 << 14)
def _results(cells: tuple[str, ...]) -> tuple[str | None, ...]:
    # Keyed by the cells alone: the last move does not change any block's result.
    return tuple(_small_result(cells[b * 9 : b * 9 + 9]) for b in range(9))


def block_results(board: UltimateBoard) -> tuple[str | None, ...]:
    """block_result of each of the nine small boards."""
    return _results(board.cells)


def _won_mask(results: tuple[str | None, ...], mark: str) -> int:
    return sum(1 << b for b, result in enumerate(results) if result == mark)


def winner(board: UltimateBoard) -> str | None:
    """X or O once that mark has won three small boards in a row, else None."""
    results = _results(board.cells)
    for mark in (X, O):
        if HAS_LINE[_won_mask(results, mark)]:
            return mark
    return None


def winning_blocks(board: UltimateBoard) -> frozenset[int]:
    """The small boards of the winner's line(s) of blocks; empty if nobody has won."""
    mark = winner(board)
    if mark is None:
        return frozenset()
    won = _won_mask(_results(board.cells), mark)
    return frozenset(
        b for line, m in zip(LINES, LINE_MASKS, strict=True) if won & m == m for b in line
    )


def winning_cells(board: UltimateBoard) -> frozenset[int]:
    """For display: the cells (indexes) of the winning line(s) of every won small board."""
    found: set[int] = set()
    for block, result in enumerate(_results(board.cells)):
        if result in (X, O):
            mask = _mask(block_cells(board, block), result)
            for line, m in zip(LINES, LINE_MASKS, strict=True):
                if mask & m == m:
                    found.update(block * 9 + cell for cell in line)
    return frozenset(found)


# --- the game ------------------------------------------------------------------------------


def is_over(board: UltimateBoard) -> bool:
    """True once someone has a line of small boards or no small board is open."""
    return winner(board) is not None or None not in _results(board.cells)


def outcome(board: UltimateBoard) -> str:
    """The state in core.rules' words: NOT_FINISHED, DRAW, X_WINS or O_WINS."""
    mark = winner(board)
    if mark is not None:
        return X_WINS if mark == X else O_WINS
    return NOT_FINISHED if None in _results(board.cells) else DRAW


def playable_blocks(board: UltimateBoard) -> tuple[int, ...]:
    """The small boards the player to move may play in; empty once the game is over."""
    if is_over(board):
        return ()
    results = _results(board.cells)
    if board.last is not None:
        target = board.last % 9
        if results[target] is None:
            return (target,)
    return tuple(b for b, result in enumerate(results) if result is None)


def legal_moves(board: UltimateBoard) -> list[int]:
    """The free cells of the playable small boards, in index order."""
    cells = board.cells
    return [
        b * 9 + c for b in playable_blocks(board) for c in range(9) if cells[b * 9 + c] == EMPTY
    ]


def play(board: UltimateBoard, index: int) -> UltimateBoard:
    """The board after the player to move marks cell `index`.

    Raises OutOfRangeError(9), GameOverError, WrongBlockError (outside the playable small
    boards, whether that cell is free or not) or CellOccupiedError; the board never changes.
    """
    if not 0 <= index < CELLS:
        raise OutOfRangeError(SIZE)
    allowed = playable_blocks(board)
    if not allowed:
        raise GameOverError()
    if index // 9 not in allowed:
        raise WrongBlockError(allowed)
    if board.cells[index] != EMPTY:
        raise CellOccupiedError()
    cells = board.cells
    return UltimateBoard((*cells[:index], turn(board), *cells[index + 1 :]), index)


# --- a mutable position for search ---------------------------------------------------------

# The moves into block b whose free cells are `free`: MOVES[b][free].
MOVES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(b * 9 + c for c in MASK_CELLS[free]) for free in range(512)) for b in range(9)
)


class Position:
    """A mutable copy of a board for the AI, in masks. Players are 1 (X) and 2 (O).

    `marks[p][block]` holds p's cells in that block and `won[p]` the blocks p has won (index
    0 of both is unused); `closed` holds the blocks won or full; `target` is the block the next
    move must go to, or -1 for a free choice; `result` is 0 while the game goes on, else the
    winner's number, or 3 for a draw. `play` trusts its move: the AI only plays `moves()`.
    """

    __slots__ = ("closed", "marks", "player", "result", "target", "won")

    def __init__(self, board: UltimateBoard) -> None:
        self.marks = [[], [0] * 9, [0] * 9]
        self.won = [0, 0, 0]
        self.closed = 0
        for index, mark in enumerate(board.cells):
            if mark != EMPTY:
                self.marks[1 if mark == X else 2][index // 9] |= 1 << index % 9
        for block in range(9):
            xs, os_ = self.marks[1][block], self.marks[2][block]
            if HAS_LINE[xs] or HAS_LINE[os_]:
                self.won[1 if HAS_LINE[xs] else 2] |= 1 << block
            if HAS_LINE[xs] or HAS_LINE[os_] or xs | os_ == FULL:
                self.closed |= 1 << block
        last = board.last
        self.target = last % 9 if last is not None and not self.closed >> last % 9 & 1 else -1
        self.player = 1 if turn(board) == X else 2
        self.result = next((p for p in (1, 2) if HAS_LINE[self.won[p]]), 0)
        if not self.result and self.closed == FULL:
            self.result = 3

    def copy(self) -> Position:
        position = Position.__new__(Position)  # no board to read: the fields are copied
        position.marks = [[], self.marks[1][:], self.marks[2][:]]
        position.won = self.won[:]
        position.closed = self.closed
        position.target = self.target
        position.player = self.player
        position.result = self.result
        return position

    def blocks(self) -> tuple[int, ...]:
        """The blocks the player to move may play in; none once the game is over."""
        if self.result:
            return ()
        if self.target >= 0:
            return (self.target,)
        return MASK_CELLS[FULL & ~self.closed]

    def free(self, block: int) -> int:
        """The mask of the free cells of `block`."""
        return FULL & ~(self.marks[1][block] | self.marks[2][block])

    def moves(self) -> list[int]:
        """The legal moves, in index order."""
        return [m for b in self.blocks() for m in MOVES[b][self.free(b)]]

    def play(self, move: int) -> None:
        """Mark `move` for the player to move (a legal move: it is not checked)."""
        p = self.player
        block, cell = divmod(move, 9)
        mine = self.marks[p]
        mask = mine[block] | 1 << cell
        mine[block] = mask
        bit = 1 << block
        if HAS_LINE[mask]:
            self.won[p] |= bit
            self.closed |= bit
            if HAS_LINE[self.won[p]]:
                self.result = p
        elif mask | self.marks[3 - p][block] == FULL:
            self.closed |= bit
        if not self.result and self.closed == FULL:
            self.result = 3
        self.target = -1 if self.closed >> cell & 1 else cell
        self.player = 3 - p

    def after(self, move: int) -> Position:
        """A copy with `move` played."""
        position = self.copy()
        position.play(move)
        return position
