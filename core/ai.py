"""AI levels: each is a function of (board, random.Random) -> cell.

easy   a uniformly random free cell
medium win in one move if possible, else block the opponent's one-move win, else random
hard   perfect play from the solved table on 3×3; on bigger boards a time-budgeted
       alpha-beta search (core.search.engine) that never misses a win in one, always blocks one,
       and answers open k−2 runs before they become unstoppable

easy and medium mean the same on every board size: `completing_cells` follows the board's
size and line length k.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from core.board import Board, GameOverError, other
from core.rules import is_over, lines_through, turn
from core.search.engine import DEFAULT_BUDGET, Clock, search_move
from core.solver import best_moves

Strategy = Callable[[Board, random.Random], int]


class Level(StrEnum):
    """The AI's levels, weakest first; the values are the ones stored and sent in buttons."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


LEVELS = tuple(Level)


def _free_cells(board: Board) -> list[int]:
    if is_over(board):
        raise GameOverError()
    return board.free_cells()


def completing_cells(board: Board, mark: str) -> list[int]:
    """Free cells where `mark` would complete a line of k at once."""
    cells = board.cells
    found = []
    for cell in board.free_cells():
        for line in lines_through(board.size, board.k)[cell]:
            if all(cells[i] == mark or i == cell for i in line):
                found.append(cell)
                break
    return found


def easy_move(board: Board, rng: random.Random) -> int:
    """A uniformly random free cell."""
    return rng.choice(_free_cells(board))


def medium_move(board: Board, rng: random.Random) -> int:
    """Win if possible, else block the opponent's win, else a random free cell."""
    free = _free_cells(board)
    me = turn(board)
    wins = completing_cells(board, me)
    if wins:
        return rng.choice(wins)
    blocks = completing_cells(board, other(me))
    if blocks:
        return rng.choice(blocks)
    return rng.choice(free)


def hard_move(
    board: Board,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.thread_time,
) -> int:
    """The strongest level: a random choice among the best moves.

    On 3×3 (k=3) the best moves are the solved table's (perfect play, instant). On any other
    board they come from a search that takes up to `time_budget` seconds by `clock` (CPU time
    of this thread by default, so a busy host delays the answer but never weakens it); as the
    first player on a board it wins by force, the search plays a fixed strategy proven to win
    (core.search.engine, WON_BOARD_READINGS) and may take longer on a few opening moves.
    """
    if not board.is_classic:
        return search_move(board, rng, time_budget=time_budget, clock=clock)
    moves = best_moves(board)
    if not moves:  # the table has no moves exactly for finished games
        raise GameOverError()
    return rng.choice(moves)


STRATEGIES: dict[Level, Strategy] = {
    Level.EASY: easy_move,
    Level.MEDIUM: medium_move,
    Level.HARD: hard_move,
}


def choose_move(
    level: Level, board: Board, rng: random.Random, *, time_budget: float = DEFAULT_BUDGET
) -> int:
    """The move of the AI at `level` (one of LEVELS); `hard` thinks up to `time_budget` s."""
    return move_at_level(STRATEGIES, level, board, rng, time_budget)


def move_at_level(
    strategies: Mapping[Level, Callable[..., int]],
    level: Level,
    board: Any,
    rng: random.Random,
    time_budget: float,
) -> int:
    """The move of `strategies[level]` (one per level of LEVELS, for any kind of board);
    `hard`, the one level that searches, gets the time budget."""
    try:
        strategy = strategies[level]
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}") from None
    if level == Level.HARD:
        return strategy(board, rng, time_budget=time_budget)
    return strategy(board, rng)
