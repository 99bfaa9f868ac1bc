"""The players table: each player's name and client language as last seen, the language they
chose with /language, whether they are on the ladder, and what their block of the bot left to
tell them once they are back."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import delete, select, update

from bot.games.db import statements
from bot.games.db.models import Player, utcnow
from bot.games.db.store import Db
from bot.games.db.writes import CoreTransaction
from bot.games.model import PlayerInfo


async def upsert_player(session: CoreTransaction, user: PlayerInfo) -> PlayerInfo:
    """Insert or refresh the player's name and language, safe against concurrent inserts.
    Returns the player as stored (names are trimmed to what the column holds), speaking the
    language they chose with /language if they did."""
    stored = as_stored(user)
    chosen = await session.scalar(
        statements.player_upsert(session.bind.dialect.name),
        statements.player_parameters(stored, utcnow()),
    )
    return replace(stored, language_code=chosen or stored.language_code)


def as_stored(user: PlayerInfo) -> PlayerInfo:
    """The player as the players table holds them: names and languages trimmed to their
    columns (the language their client reports, not the one they chose with /language)."""
    # PostgreSQL text cannot hold NUL; nothing legitimate carries one.
    name = user.name.replace("\x00", "")[:128] or str(user.id)
    language = (user.language_code or "").replace("\x00", "")[:16] or None
    return replace(user, name=name, language_code=language)


async def stored_player(session: Db, user_id: int) -> PlayerInfo | None:
    found = await session.execute(
        select(Player.id, Player.name, Player.chosen_language, Player.language_code).where(
            Player.id == user_id
        )
    )
    player = found.first()
    if player is None:
        return None
    return PlayerInfo(player.id, player.name, player.chosen_language or player.language_code)


async def chosen_language(session: Db, user_id: int) -> str | None:
    """The language the user chose with /language, if any."""
    found = await session.execute(select(Player.chosen_language).where(Player.id == user_id))
    return found.scalar_one_or_none()


async def choose_language(session: CoreTransaction, user_id: int, code: str) -> None:
    await session.execute(
        update(Player).where(Player.id == user_id).values(chosen_language=code[:16])
    )


async def set_on_ladder(session: CoreTransaction, user_id: int, on: bool) -> None:
    await session.execute(update(Player).where(Player.id == user_id).values(on_ladder=on))


async def is_on_ladder(session: Db, user_id: int) -> bool:
    found = await session.scalar(select(Player.on_ladder).where(Player.id == user_id))
    return bool(found)


async def is_stored(session: Db, user_id: int) -> bool:
    """Whether the players table has a row of the user's."""
    return await session.scalar(select(Player.id).where(Player.id == user_id)) is not None


async def delete_player(session: CoreTransaction, user_id: int) -> None:
    await session.execute(delete(Player).where(Player.id == user_id))


async def away_of(session: Db, player_id: int) -> tuple[datetime | None, int | None] | None:
    """Since when the player has blocked the bot, and the waiting message of the search it
    ended (None: no such player)."""
    away = (
        await session.execute(
            select(Player.away_since, Player.away_search_message_id).where(Player.id == player_id)
        )
    ).first()
    return None if away is None else (away.away_since, away.away_search_message_id)


async def mark_away(session: CoreTransaction, player_id: int, now: datetime) -> None:
    """The player blocked the bot: away from `now` on."""
    await session.execute(update(Player).where(Player.id == player_id).values(away_since=now))


async def mark_back(session: CoreTransaction, player_id: int) -> None:
    """The player is back and is told what their block closed: nothing left to tell."""
    await session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(away_since=None, away_search_message_id=None)
    )


async def keep_search_message(
    session: CoreTransaction, player_id: int, message_id: int | None
) -> None:
    """Keep the waiting message of a player who blocked the bot, on their player: it cannot be
    edited now, and says the search ended once they are back (`Chats.closed_while_away`). A
    search their block ended (`Matchmaking.cancel`), or a pairing undone because their board
    could not be posted (the block's cancel then finds no entry), or a message posted as they
    blocked the bot (`Chats.keep_search_message`)."""
    await session.execute(
        update(Player).where(Player.id == player_id).values(away_search_message_id=message_id)
    )
