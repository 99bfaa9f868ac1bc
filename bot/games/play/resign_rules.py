"""Resign's question as pure rules: a player who taps 🏳 Resign is asked first, and the
question is stored on the game (`resign_asked_by`, `resign_asked_ply`), so that every drawing
of its board, by whoever draws it, asks it until it is answered or a move is made."""

from __future__ import annotations

from dataclasses import replace

from bot.games.model import GameView


def resign_question(game: GameView) -> int | None:
    """Whom the board asks "Resign this game?" now: the player who tapped 🏳 Resign at this
    move, until they answer or a move is made."""
    if not game.is_active or game.resign_asked_ply != game.ply:
        return None
    return game.resign_asked_by


def asked_to_resign(game: GameView, user_id: int | None) -> GameView:
    """The game with Resign's question asked of `user_id` at this move (None: none open)."""
    ply = None if user_id is None else game.ply
    return replace(game, resign_asked_by=user_id, resign_asked_ply=ply)
