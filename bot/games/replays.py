"""Replays: a finished game and its moves in order (`summaries.Replay`), loaded for a chat
where the game is shown (`BoardRef`) once it is finished, as Review and Picture are."""

from __future__ import annotations

from sqlalchemy import select

from bot.games import reads
from bot.games.db.models import Move
from bot.games.model import BoardRef, GameView
from bot.games.store import Store
from bot.games.summaries import Replay


class Replays:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def of_game(self, game_id: int, ref: BoardRef) -> Replay | None:
        """The replay of a finished game shown where `ref` is (None for any other game:
        unknown, still running, or of another chat)."""
        async with self._store.sessions() as session:
            loaded = await reads.load(session, game_id)
            if loaded is None or not loaded.view.is_finished or not ref.matches(loaded.view):
                return None
            return await _replay(session, loaded.view)


async def _replay(session: reads.Db, game: GameView) -> Replay:
    rows = await session.execute(
        select(Move.cell, Move.mark).where(Move.game_id == game.id).order_by(Move.ply)
    )
    return Replay(game, tuple((row.cell, row.mark) for row in rows))
