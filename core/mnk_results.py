"""Which of the bot's boards the first player wins by force: published m,n,k-game results.

An (m,n,k)-game is k in a row on an m×n board (tic-tac-toe is (3,3,3)). Perfect play by
both sides gives either a first-player win or a draw (strategy stealing rules out a second-
player win). The results this table encodes, as collected in Wikipedia's "m,n,k-game"
(section "Specific results") after J. W. H. M. Uiterwijk and H. J. van den Herik, "The
advantage of the initiative", Information Sciences 122 (2000) 43–58:

- k = 3: (3,3,3) is a draw; (m,n,3) is a first-player win for every larger board (m ≥ 4, n ≥ 3).
- k = 4: (5,5,4) is a draw, and so is (m,4,4) for the widths here; (6,5,4) is a win, hence so
  is every board at least 6×5 (a weak win on a board stays one on any larger board).
- k = 5 and more on boards up to 8×8: draws ((8,8,5) was shown a draw in 2020; a draw
  stays one on smaller boards and for longer lines).

Only square boards of 3 to 8 are offered (`core.board.SIZES`), so the wins among them are
4×4 to 8×8 with k = 3, and 6×6 to 8×8 with k = 4. Ultimate tic-tac-toe is not an m,n,k-game
and is not in this table.
"""

from __future__ import annotations

from core.board import Board, Variant

#: The least board (rows, columns, either way round) on which the first player wins k in a
#: row by force, for each k that has one within 8×8.
LEAST_FIRST_PLAYER_WIN: dict[int, tuple[int, int]] = {
    3: (4, 3),
    4: (6, 5),
}


def first_player_wins(rows: int, columns: int, k: int) -> bool:
    """Whether the (rows, columns, k)-game is a published first-player win."""
    least = LEAST_FIRST_PLAYER_WIN.get(k)
    if least is None:
        return False
    small, large = sorted(least)
    low, high = sorted((rows, columns))
    return low >= small and high >= large


def is_forced_win(board: Board) -> bool:
    """Whether `board`'s game (its size and k; ultimate is none) is a first-player win."""
    return board.variant is Variant.CLASSIC and first_player_wins(board.size, board.size, board.k)
