"""core.ultimate.tactics against a model on the rules' public functions: the masks' shortcuts
must agree with playing each move and looking at the opponent's replies."""

from __future__ import annotations

import pytest

from core.ultimate.rules import Position, is_over, legal_moves
from core.ultimate.tactics import block_wins, game_wins, safe_moves
from tests.core.test_ultimate_ai import game_wins as model_game_wins
from tests.core.test_ultimate_ai import gives_a_game_win, sample, wins_small_board


def test_game_wins_are_the_moves_that_win_the_game() -> None:
    for board in sample():
        assert sorted(game_wins(Position(board))) == model_game_wins(board)


def test_block_wins_are_the_moves_that_win_a_small_board() -> None:
    for board in sample()[::2]:
        position = Position(board)
        for player, mark in ((1, "X"), (2, "O")):
            expected = [m for m in legal_moves(board) if wins_small_board(board, m, mark)]
            assert sorted(block_wins(position, player)) == expected


@pytest.mark.slow
def test_safe_moves_leave_the_opponent_no_game_win() -> None:
    # Every position of the sample where some move gives a game win and some does not, and
    # where every move does: the shortcut (no move played) agrees with playing them.
    mixed = every = 0
    for board in sample():
        if is_over(board):
            continue
        moves = legal_moves(board)
        unsafe = [m for m in moves if gives_a_game_win(board, m)]
        expected = [m for m in moves if m not in unsafe] or moves
        assert safe_moves(Position(board), Position(board).moves()) == expected
        mixed += 0 < len(unsafe) < len(moves)
        every += len(unsafe) == len(moves)
    assert mixed >= 10 and every >= 1
