"""Text renderings of a board."""

from __future__ import annotations

from core.board import Board


def render_hyperskill(board: Board) -> str:
    """The Hyperskill board, e.g. for 3×3:

    ---------
    | X O   |
    |   X   |
    |     O |
    ---------
    """
    border = "-" * (2 * board.size + 3)
    rows = [
        "| " + " ".join(board.cells[r * board.size : (r + 1) * board.size]) + " |"
        for r in range(board.size)
    ]
    return "\n".join([border, *rows, border])
