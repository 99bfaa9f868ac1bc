"""The rules: whose turn, legal moves, playing a move, winner and outcome."""

from __future__ import annotations

from functools import cache, lru_cache

from core.board import (
    EMPTY,
    MARKS,
    SEAT_MARKS,
    Board,
    CellOccupiedError,
    GameOverError,
    InvalidBoardError,
    O,
    OutOfRangeError,
    T,
    X,
)

NOT_FINISHED = "Game not finished"
DRAW = "Draw"
X_WINS = "X wins"
O_WINS = "O wins"

Line = tuple[int, ...]


@cache
def lines(size: int, k: int) -> tuple[Line, ...]:
    """Every run of k cells in a row: rows, columns and both diagonal directions."""
    found: list[Line] = []
    for row in range(size):
        for col in range(size):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = row + dr * (k - 1), col + dc * (k - 1)
                if 0 <= end_r < size and 0 <= end_c < size:
                    found.append(tuple((row + dr * i) * size + col + dc * i for i in range(k)))
    return tuple(found)


@cache
def lines_through(size: int, k: int) -> tuple[tuple[Line, ...], ...]:
    """For each cell, the lines that pass through it."""
    return tuple(tuple(ln for ln in lines(size, k) if cell in ln) for cell in range(size * size))


def winning_lines(board: Board, mark: str) -> list[Line]:
    """All lines completely filled with `mark`."""
    cells = board.cells
    return [ln for ln in lines(board.size, board.k) if all(cells[i] == mark for i in ln)]


@lru_cache(maxsize=1 << 16)
def winner(board: Board) -> str | None:
    """The mark (X or O; T or S in games of more players) that has k in a row, else None.

    Memoized: the bot asks this of the same few positions many times per move (rules,
    rendering, the service), and a board is an immutable, hashable value."""
    for mark in MARKS if T not in board.cells else SEAT_MARKS:
        if winning_lines(board, mark):
            return mark
    return None


def winning_cells(board: Board) -> frozenset[int]:
    """The cells of the winner's line(s), for highlighting; empty if nobody has won."""
    mark = winner(board)
    if mark is None:
        return frozenset()
    return frozenset(i for ln in winning_lines(board, mark) for i in ln)


def is_over(board: Board) -> bool:
    """True once someone has won or no cell is free."""
    return winner(board) is not None or EMPTY not in board.cells


def outcome(board: Board) -> str:
    """The state in Hyperskill words: `Game not finished`, `Draw`, `X wins` or `O wins`."""
    mark = winner(board)
    if mark == X:
        return X_WINS
    if mark == O:
        return O_WINS
    return DRAW if EMPTY not in board.cells else NOT_FINISHED


def turn(board: Board) -> str:
    """The mark to move: X starts; with one extra X on the board it is O's turn."""
    return X if board.count(X) == board.count(O) else O


def legal_moves(board: Board) -> list[int]:
    """Free cells, or none once the game is over."""
    return [] if is_over(board) else board.free_cells()


def play(board: Board, cell: int) -> Board:
    """The board after the player to move marks `cell`.

    Raises OutOfRangeError, CellOccupiedError or GameOverError; the board itself never changes.
    """
    return play_as(board, cell, turn(board))


def play_as(board: Board, cell: int, mark: str) -> Board:
    """The board after `mark` takes `cell`: in games of three or four players, whose turns do
    not follow from the marks' counts. Raises as `play` does."""
    if not 0 <= cell < len(board.cells):
        raise OutOfRangeError(board.size)
    if is_over(board):
        raise GameOverError()
    if board[cell] != EMPTY:
        raise CellOccupiedError()
    return board.with_mark(cell, mark)


def validate(board: Board) -> None:
    """Reject a position that cannot arise in play: wrong counts, two winners, play after a win."""
    xs, os_ = board.count(X), board.count(O)
    if xs - os_ not in (0, 1):
        raise InvalidBoardError("X moves first, so X has as many marks as O or one more")
    x_won, o_won = bool(winning_lines(board, X)), bool(winning_lines(board, O))
    if x_won and o_won:
        raise InvalidBoardError("both X and O have a line")
    if x_won and xs != os_ + 1:
        raise InvalidBoardError("O moved after X had already won")
    if o_won and xs != os_:
        raise InvalidBoardError("X moved after O had already won")
    for mark in (X, O):
        found = winning_lines(board, mark)
        if found and not frozenset.intersection(*(frozenset(ln) for ln in found)):
            # Every line must contain the winning move, so the lines share a cell.
            raise InvalidBoardError(f"{mark} has lines that no single last move completes")
