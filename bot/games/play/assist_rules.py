"""The rules of help against the AI, as pure functions on plain values: who may have a hint
or an undo, and the game an undo leaves. Two players on one phone may undo too (the last
move, whichever side made it), as a board game's players take a move back; they have no
hints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from bot.games.model import GameView, MoveStatus
from bot.games.play.lifecycle import PlayedMove, player_refusal
from core.board import EMPTY, Board, MoveError
from core.positions import play


def assist_refusal(game: GameView, user_id: int, *, undo: bool = False) -> MoveStatus | None:
    """Why the user may not have a hint or an undo now, or None: only in a running game
    against the AI, on their own turn (not while the AI thinks); an `undo` on one phone too."""
    refusal = player_refusal(game, user_id)
    if refusal is not None:
        return refusal
    if not (game.is_against_ai or (undo and game.is_one_phone)):
        return MoveStatus.NOT_AGAINST_AI
    if not game.is_player(game.to_move, user_id):
        return MoveStatus.NOT_YOUR_TURN
    return None


def take_back(
    game: GameView, history: Sequence[PlayedMove], user_id: int, now: datetime
) -> tuple[GameView, int] | MoveStatus:
    """The game before the user's last move (and the AI's replies to it), marked assisted,
    and how many moves of `history` it keeps; on one phone, before the last move of either
    side. NOTHING_TO_UNDO when the user has no move to take back; STALE when the history
    does not lead to the board read (another transaction changed the game between the two
    reads)."""
    mine = set(game.marks) if game.is_one_phone else {game.mark_of(user_id)}
    board = game.board.shape.empty_board()
    last: int | None = None
    kept: tuple[Board, int | None, int] | None = None
    for number, move in enumerate(history):
        if move.ply != number + 1 or board[move.cell] != EMPTY:
            return MoveStatus.STALE
        if move.mark in mine:
            kept = (board, last, number)
        try:
            board, last = play(board, last, move.cell), move.cell
        except MoveError:
            return MoveStatus.STALE
    if board != game.board:
        return MoveStatus.STALE
    if kept is None:
        return MoveStatus.NOTHING_TO_UNDO
    before, before_last, count = kept
    taken = replace(
        game, board=before, last_cell=before_last, assisted=True, turn_started_at=now, nudges=0
    )
    return taken, count
