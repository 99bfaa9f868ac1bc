"""The solved 3×3 game: every reachable position and its best moves.

Tic-tac-toe has 5,478 positions reachable from the empty board. Solving them once turns a
perfect move into a dictionary lookup.

Scores are from the point of view of the player to move: a win scores more the sooner it
comes (more free cells left), a loss scores less the sooner it comes, a draw is 0.
"""

from __future__ import annotations

from functools import cache

from core.board import EMPTY, Board, InvalidBoardError
from core.rules import is_over, play, winner


@cache
def solved_table() -> dict[tuple[str, ...], tuple[int, tuple[int, ...]]]:
    """Map the cells of every reachable 3×3 position to (score, best moves)."""
    table: dict[tuple[str, ...], tuple[int, tuple[int, ...]]] = {}

    def solve(board: Board) -> int:
        known = table.get(board.cells)
        if known is not None:
            return known[0]
        if is_over(board):
            # The previous player made the last move: a win for them is a loss here.
            free = board.cells.count(EMPTY)
            score = -(free + 1) if winner(board) else 0
            table[board.cells] = (score, ())
            return score
        scored = [(-solve(play(board, cell)), cell) for cell in board.free_cells()]
        best = max(score for score, _ in scored)
        table[board.cells] = (best, tuple(cell for score, cell in scored if score == best))
        return best

    solve(Board.empty())
    return table


def position_score(board: Board) -> int:
    """The solved score of a 3×3 position for the player to move (>0 win, 0 draw, <0 loss)."""
    return solved_table()[board.cells][0]


def best_moves(board: Board) -> tuple[int, ...]:
    """All equally best moves of a 3×3 position; empty once the game is over."""
    if not board.is_classic:
        raise ValueError("the solved table covers the 3x3 game only")
    entry = solved_table().get(board.cells)
    if entry is None:
        raise InvalidBoardError("this position cannot arise in play")
    return entry[1]
