"""Players' own settings: the language they chose."""

from __future__ import annotations

from bot.games.db.rows import players as player_rows
from bot.games.db.store import Store
from bot.games.model import PlayerInfo


class Players:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def choose_language(self, user: PlayerInfo, code: str) -> None:
        """From now on the bot speaks `code` (a catalog's code) with this user, whatever their
        Telegram client's language. `/forget` deletes the choice with the rest."""
        async with self._store.transaction() as session:
            await player_rows.upsert_player(session, user)
            await player_rows.choose_language(session, user.id, code)
