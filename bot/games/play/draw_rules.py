"""A draw offered between two people, as pure rules, modelled on Resign's question
(`resign_rules`): the offer is stored on the game (`draw_offered_by`, `draw_offer_ply`), so
every drawing of the opponent's board offers ✅ Accept / ✖ Decline, by whoever draws it, until
they answer or a move is made: a move withdraws it (as on lichess, a move declines)."""

from __future__ import annotations

from dataclasses import replace

from bot.games.model import EndReason, GameStatus, GameView, Result
from core.board import other


def may_offer_draw(game: GameView) -> bool:
    """Whether a draw may be offered in this game: a live game of two different people (not
    against the AI, not on one phone, not of three or four)."""
    return game.is_active and game.is_between_people and not game.is_many


def draw_offer(game: GameView) -> int | None:
    """Who offers a draw now: the player who tapped 🤝 at this move, until the opponent
    answers or a move is made."""
    if not may_offer_draw(game) or game.draw_offer_ply != game.ply:
        return None
    return game.draw_offered_by


def draw_offered_to(game: GameView) -> int | None:
    """Whom a draw is offered to now: the offerer's opponent (None: no offer open)."""
    offerer = draw_offer(game)
    mark = None if offerer is None else game.mark_of(offerer)
    return None if mark is None else game.player_id_of(other(mark))


def offered_draw(game: GameView, user_id: int | None) -> GameView:
    """The game with a draw offered by `user_id` at this move (None: the offer withdrawn)."""
    ply = None if user_id is None else game.ply
    return replace(game, draw_offered_by=user_id, draw_offer_ply=ply)


def agreed_draw(game: GameView) -> GameView:
    """The game ended as a draw by agreement, the offer answered."""
    drawn = offered_draw(game, None)
    return replace(
        drawn, status=GameStatus.FINISHED, result=Result.DRAW, end_reason=EndReason.AGREED
    )
