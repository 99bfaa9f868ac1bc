"""The players table: each player's name and client language as last seen, and the language
they chose with /language."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

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
