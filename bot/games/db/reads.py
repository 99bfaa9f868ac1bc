"""Reading stored games: a row of `statements.VIEW` (a game with its players' names) as a
`GameView`, parsed once, with the version it was read at."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.db import statements
from bot.games.db.live_games import Loaded
from bot.games.db.models import Game, Move, aware
from bot.games.db.writes import CoreTransaction
from bot.games.matches.rules import MatchScore, MatchStatus, score_after
from bot.games.model import LIVE, EndReason, GameStatus, GameView, PlayerKind, Result
from core.positions import board_from_text

#: Where reads run: an ORM session, or a write transaction (`Store.transaction`).
Db = AsyncSession | CoreTransaction


def view_of(row: Any) -> Loaded:
    """The view of a row of `statements.VIEW` (a game with its players' names)."""
    values: dict[str, Any] = {name: getattr(row, name) for name in statements.VIEW_COLUMNS}
    values["turn_started_at"] = aware(row.turn_started_at)
    values["flag_at"] = aware(row.flag_at)
    values["nudges"] = row.nudges or 0
    values["assisted"] = bool(row.assisted)
    # The stored words, as the enums they are (the same strings: StrEnum).
    values["x_kind"], values["o_kind"] = PlayerKind(row.x_kind), PlayerKind(row.o_kind)
    values["status"] = GameStatus(row.status)
    values["result"] = None if row.result is None else Result(row.result)
    values["end_reason"] = None if row.end_reason is None else EndReason(row.end_reason)
    view = GameView(
        id=row.id,
        public_id=row.public_id,
        board=board_from_text(row.board, row.size, row.k, row.seats, variant=row.variant),
        x_name=row.x_name,
        o_name=row.o_name,
        t_name=row.t_name,
        s_name=row.s_name,
        invited_name=row.invited_name,
        **{"version": row.version, "shown_version": row.shown_version},
        updated_at=aware(row.updated_at),
        match=match_score_of(row),
        tournament_id=row.tournament_id,
        **values,
    )
    return Loaded(view, row.version)


def match_score_of(row: Any) -> MatchScore | None:
    """The score of the match a row of `statements.VIEW` is a game of, if it is one."""
    if row.match_best_of is None:
        return None
    return MatchScore(
        row.match_best_of,
        row.match_a_halves,
        row.match_b_halves,
        row.match_played,
        MatchStatus(row.match_status),
    )


# The games of a match, in order, with their results.
_MATCH_GAMES = (
    select(Game.match_game, Game.result)
    .where(Game.match_id == bindparam("match_id"))
    .order_by(Game.match_game)
)


async def as_of_itself(session: Db, loaded: Loaded) -> Loaded:
    """A match game the match went on after shows the score as it stood when that game
    ended (its games up to it: `match_rules.score_after`), not the match's score now, which
    the row carries. One more read, for the boards of such games only."""
    view = loaded.view
    score, number = view.match, view.match_game
    if view.is_live or score is None or number is None or score.played < number:
        return loaded
    if score.played == number and score.status is not MatchStatus.ABANDONED:
        return loaded  # this game ended the match, or the match goes on from it
    # Played as many as this game's number, and stopped: by this game, or by a later one
    # that ended with no result (and so was not counted).
    games = (await session.execute(_MATCH_GAMES, {"match_id": view.match_id})).all()
    if max(game.match_game for game in games) <= number:
        return loaded
    winners = [
        Result(game.result).winner
        for game in games
        if game.match_game <= number and game.result is not None
    ]
    return Loaded(replace(view, match=score_after(score.best_of, winners)), loaded.version)


async def load(session: Db, game_id: int) -> Loaded | None:
    row = (await session.execute(statements.BY_ID, {"game_id": game_id})).first()
    return None if row is None else await as_of_itself(session, view_of(row))


async def load_all(
    session: Db, *criteria: Any, order_by: Sequence[Any] = (Game.id,)
) -> list[Loaded]:
    """Games matching `criteria`, oldest first unless `order_by` says otherwise."""
    rows = (await session.execute(statements.VIEW.where(*criteria).order_by(*order_by))).all()
    return [await as_of_itself(session, view_of(row)) for row in rows]


async def moves_of(session: Db, game_id: int) -> list[Any]:
    """A game's moves in order, as rows of `ply`, `cell` and `mark`."""
    rows = await session.execute(
        select(Move.ply, Move.cell, Move.mark).where(Move.game_id == game_id).order_by(Move.ply)
    )
    return list(rows)


async def live_games_in_chat(session: Db, chat_id: int) -> list[Loaded]:
    """The chat's running games and open challenges, newest first (a game between strangers
    is in both players' chats)."""
    return await load_all(
        session,
        or_(Game.chat_id == chat_id, Game.second_chat_id == chat_id),
        Game.status.in_(LIVE),
        order_by=(Game.id.desc(),),
    )


async def stranger_game_of(session: Db, user_id: int) -> Loaded | None:
    """The user's running game against a stranger, if any (they play one at a time)."""
    found = await load_all(
        session,
        Game.status.in_(LIVE),
        Game.second_chat_id.is_not(None),
        or_(Game.x_player_id == user_id, Game.o_player_id == user_id),
    )
    return found[0] if found else None


async def load_on_inline_message(session: Db, inline_message_id: str) -> Loaded | None:
    found = await load_all(session, Game.inline_message_id == inline_message_id)
    return found[0] if found else None
