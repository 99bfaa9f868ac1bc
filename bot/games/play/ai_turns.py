"""The AI's turns that are not instant: every move of an AI-vs-AI match (paced for
spectators by the caller) and replies that need thought (hard on a big board)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from bot.games.db import reads, store
from bot.games.db.models import utcnow
from bot.games.db.rows import games as game_rows
from bot.games.db.store import LOST_RACE, Store
from bot.games.model import GameView
from bot.games.play import lifecycle
from core.ai import Level
from core.board import Board
from core.positions import choose_move

Thinker = Callable[[Level, Board, int | None, int], Awaitable[int]]
"""(level, board, last cell, seed) -> the AI's move, computed off the event loop."""


async def think_in_thread(level: Level, board: Board, last_cell: int | None, seed: int) -> int:
    """The default thinker: the search in a worker thread."""
    return await asyncio.to_thread(choose_move, level, board, last_cell, random.Random(seed))


class AiTurns:
    def __init__(self, games: Store, rng: random.Random, think: Thinker | None = None) -> None:
        self._store = games
        self._rng = rng
        self._think = think or think_in_thread

    async def step(self, game_id: int) -> GameView | None:
        """One AI move in a game where the AI is to move; None when there is nothing to do.

        A move that needs thought is searched outside any transaction, off the event loop,
        and written only if the board is still the one searched."""
        snapshot = await self._store.get_game(game_id)
        if snapshot is None or not snapshot.waits_for_ai:
            return None
        level = snapshot.kind_to_move.level
        assert level is not None  # the AI is to move: a kind that is a level
        if lifecycle.is_instant(level, snapshot):
            cell = choose_move(level, snapshot.board, snapshot.last_cell, self._rng)
        else:
            seed = self._rng.getrandbits(32)
            cell = await self._think(level, snapshot.board, snapshot.last_cell, seed)
        try:
            async with self._store.transaction() as session:
                game = await reads.load(session, game_id)
                if game is None or not game.view.is_active or game.view.board != snapshot.board:
                    return None  # the game moved on while the AI was thinking
                turn = lifecycle.play_cell(game.view, cell, None, utcnow())
                return await store.save(session, game, turn.game, turn.moves)
        except LOST_RACE:
            return None

    async def waiting(self) -> list[GameView]:
        """Running games with a board message where the AI is to move (AI matches, and
        replies that were still being thought about): resumed after a restart."""
        async with self._store.sessions() as session:
            found = await game_rows.ai_to_move(session)
            return [game.view for game in found if game.view.waits_for_ai]
