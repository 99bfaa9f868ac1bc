"""Replays: a finished game and its moves in order (`summaries.Replay`), loaded for a chat
where the game is shown (`BoardRef`) once it is finished, as Review and Picture are; for the
page, a game's moves so far while it is played too."""

from __future__ import annotations

from bot.games.db import reads
from bot.games.db.store import Store
from bot.games.model import BoardRef, GameView
from bot.games.summaries import Replay


class Replays:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def of_game(self, game_id: int, ref: BoardRef) -> Replay | None:
        """The replay of a finished game shown where `ref` is (None for any other game:
        unknown, still running, or of another chat)."""
        async with self._store.sessions() as session:
            loaded = await reads.load(session, game_id)
            if loaded is None or not ref.matches(loaded.view):
                return None
            return await _replay(session, loaded.view)

    async def so_far(self, game_id: int) -> Replay | None:
        """The moves of a game finished or being played, as stored now (the page looks back
        at them during a game too; allowed to whoever asks): None for a game not begun or
        closed without a move counted, or unknown."""
        async with self._store.sessions() as session:
            loaded = await reads.load(session, game_id)
            if loaded is None or not (loaded.view.is_finished or loaded.view.is_active):
                return None
            return await _moves(session, loaded.view)


async def _replay(session: reads.Db, game: GameView) -> Replay | None:
    if not game.is_finished:
        return None
    return await _moves(session, game)


async def _moves(session: reads.Db, game: GameView) -> Replay:
    moves = await reads.moves_of(session, game.id)
    return Replay(game, tuple((row.cell, row.mark) for row in moves))
