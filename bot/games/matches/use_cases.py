"""Use-cases of matches of several games (`match_play` has how a match goes on)."""

from __future__ import annotations

from bot.games.db import reads
from bot.games.db.store import Store
from bot.games.matches import play as match_play
from bot.games.model import GameView


class Matches:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def next_of(self, ended: GameView) -> GameView | None:
        """The game its match started after `ended`, as stored now (None: none did)."""
        async with self._store.sessions() as session:
            game_id = await match_play.next_game_id(session, ended)
            loaded = None if game_id is None else await reads.load(session, game_id)
        return None if loaded is None else loaded.view
