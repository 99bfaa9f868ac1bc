"""The CS50 AI tic-tac-toe interface on CS50's boards: three lists of X, O or EMPTY (None).

Semantics follow the CS50 specification: `actions` returns a set of (i, j) tuples, `result`
returns a new board and raises on an invalid action without touching its input, `minimax`
returns None on a terminal board and otherwise an optimal move.
"""

from __future__ import annotations

import copy

from core import board as _board
from core import rules, solver

X = "X"
O = "O"
EMPTY = None

Cs50Board = list[list[str | None]]
Action = tuple[int, int]


def initial_state() -> Cs50Board:
    """The starting board: all cells empty."""
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def _to_board(board: Cs50Board) -> _board.Board:
    return _board.Board(tuple(_board.EMPTY if c is EMPTY else c for row in board for c in row))


def player(board: Cs50Board) -> str:
    """The player who has the next turn: X first, then alternating."""
    return rules.turn(_to_board(board))


def actions(board: Cs50Board) -> set[Action]:
    """All (i, j) cells that are still empty."""
    return {(i, j) for i in range(3) for j in range(3) if board[i][j] is EMPTY}


def result(board: Cs50Board, action: Action) -> Cs50Board:
    """The board after the player to move takes `action`; the input board is left unchanged."""
    if (
        not isinstance(action, tuple)
        or len(action) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in action)
    ):
        raise ValueError(f"an action is a tuple (i, j) of two ints, got {action!r}")
    i, j = action
    if not (0 <= i < 3 and 0 <= j < 3):
        raise ValueError(f"action {action!r} is off the board")
    if board[i][j] is not EMPTY:
        raise ValueError(f"cell {action!r} is already taken")
    new_board = copy.deepcopy(board)
    new_board[i][j] = player(board)
    return new_board


def winner(board: Cs50Board) -> str | None:
    """X or O if that player has three in a row, else None."""
    return rules.winner(_to_board(board))


def terminal(board: Cs50Board) -> bool:
    """True if someone has won or every cell is filled."""
    return rules.is_over(_to_board(board))


def utility(board: Cs50Board) -> int:
    """1 if X has won, -1 if O has won, 0 otherwise."""
    mark = winner(board)
    return 1 if mark == X else -1 if mark == O else 0


def minimax(board: Cs50Board) -> Action | None:
    """An optimal action for the player to move, or None on a terminal board."""
    position = _to_board(board)
    if rules.is_over(position):
        return None
    return position.ij(min(solver.best_moves(position)))
