"""Challenges' rules as pure functions: who may join, decline or cancel an open game, and a
seat taken. (How a game is played and how it ends: `lifecycle`.)"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from bot.games.model import GameStatus, GameView, MoveStatus, PlayerInfo
from core.board import X


def join(game: GameView, joiner: PlayerInfo, now: datetime) -> GameView:
    """The joiner takes the next free seat (O, then 🔺, then 🟦); once every seat is taken
    the game starts."""
    seat = next(mark for mark in game.marks if game.player_id_of(mark) is None)
    column = seat.lower()
    taken: dict[str, Any] = {f"{column}_player_id": joiner.id, f"{column}_name": joiner.name}
    after = replace(game, **taken)  # columns named at run time: mypy checks them as Any
    if any(after.player_id_of(mark) is None for mark in after.marks):
        return after  # seats left: still open
    started = replace(after, status=GameStatus.ACTIVE, turn_started_at=now, nudges=0)
    return replace(started, turn_mark=X) if game.is_many else started


def join_refusal(game: GameView, user: PlayerInfo) -> MoveStatus | None:
    seated = game.mark_of(user.id) is not None
    # The one who opened the game: the challenger (X), or who offered a rematch (any seat).
    opener = game.created_by_id if game.created_by_id is not None else game.x_player_id
    if game.is_active and seated:
        return MoveStatus.STALE  # already in: a double tap on Join
    if game.is_open and seated and opener != user.id:
        return MoveStatus.JOINED_ALREADY  # a seat of a game of more, waiting for the rest
    if game.is_active:
        return MoveStatus.NOT_A_PLAYER  # someone else joined first: the game is running
    if not game.is_open:
        return MoveStatus.GAME_OVER
    if opener == user.id:
        return MoveStatus.OWN_GAME
    if not is_invited(game, user):
        return MoveStatus.NOT_INVITED
    return None


def is_invited(game: GameView, user: PlayerInfo) -> bool:
    if not game.is_invitation:
        return True  # an open challenge: anyone may join
    if game.invited_player_id is not None and game.invited_player_id == user.id:
        return True
    return bool(
        game.invited_username
        and user.username
        and game.invited_username.lower() == user.username.lower()
    )


def decline_refusal(game: GameView, user: PlayerInfo) -> MoveStatus | None:
    if not game.is_open:
        return MoveStatus.GAME_OVER
    # An open challenge (nobody invited) has no one to decline it: only cancel.
    if not game.is_invitation or not is_invited(game, user):
        return MoveStatus.NOT_INVITED
    return None


def cancel_refusal(game: GameView, user_id: int) -> MoveStatus | None:
    if not game.is_open:
        return MoveStatus.GAME_OVER
    if game.created_by_id != user_id:
        return MoveStatus.NOT_CHALLENGER
    return None
