"""Help against the AI: a hint (the best move for the player to move) and an undo (the
player's last move and the AI's reply taken back). Either marks the game assisted, so that
it counts apart in the stats. Neither exists in games between people; two players on one
phone may undo (the last move), as the chat's board and the page offer."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.games.db import reads, store
from bot.games.db.live_games import Loaded
from bot.games.db.models import utcnow
from bot.games.db.rows import games as game_rows
from bot.games.db.store import Store
from bot.games.db.writes import CoreTransaction
from bot.games.model import BoardRef, GameView, MoveResult, MoveStatus, PlayerInfo
from bot.games.play import assist_rules
from bot.games.play.ai_turns import Thinker, think_in_thread
from core.ai import Level
from core.solver import best_moves


class Assists:
    """Use-cases of hints and undo; each writes in one transaction."""

    def __init__(self, games: Store, rng: random.Random, think: Thinker | None = None) -> None:
        self._store = games
        self._rng = rng
        self._think = think or think_in_thread

    async def current_game(
        self, chat_id: int, user: PlayerInfo, *, undo: bool = False
    ) -> GameView | None:
        """The chat's running game of this user against the AI (for /hint and /undo), or for
        an `undo` their game on one phone."""
        async with self._store.sessions() as session:
            for loaded in await reads.live_games_in_chat(session, chat_id):
                game = loaded.view
                helped = game.is_against_ai or (undo and game.is_one_phone)
                if game.is_active and helped and game.mark_of(user.id) is not None:
                    return game
        return None

    async def hint(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, ply: int | None = None
    ) -> MoveResult:
        """The best move for the user, who is to move; `ply` is the move number the tapped
        board showed (None for /hint). The move comes from the solved table on 3×3 and from
        the hard search, within its time budget, on bigger boards."""
        game = await self._store.get_game(game_id)
        if game is None or not ref.matches(game):
            return MoveResult(MoveStatus.NO_GAME)
        refusal = _refusal(game, user, ply)
        if refusal is not None:
            return MoveResult(refusal, game)
        if game.board.is_classic:
            cell = min(best_moves(game.board))  # the same hint every time it is asked
        else:
            seed = self._rng.getrandbits(32)
            cell = await self._think(Level.HARD, game.board, game.last_cell, seed)
        searched = game.board

        async def mark_assisted(session: CoreTransaction, loaded: Loaded) -> MoveResult:
            now = loaded.view
            if now.board != searched or _refusal(now, user, None) is not None:
                return MoveResult(MoveStatus.STALE, now)  # a move came while it was thought
            after = now if now.assisted else await store.save(session, loaded, _assisted(now))
            return MoveResult(MoveStatus.PLAYED, after, hint=cell)

        return await self._store.on_game(game_id, ref, mark_assisted)

    async def undo(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, ply: int | None = None
    ) -> MoveResult:
        """Take back the user's last move and the AI's reply; `ply` as for `hint`."""

        async def undo(session: CoreTransaction, loaded: Loaded) -> MoveResult:
            game = loaded.view
            refusal = _refusal(game, user, ply, undo=True)
            if refusal is not None:
                return MoveResult(refusal, game)
            history = await game_rows.played_moves(session, game.id)
            taken = assist_rules.take_back(game, history, user.id, utcnow())
            if isinstance(taken, MoveStatus):
                return MoveResult(taken, game)
            before, kept = taken
            game_rows.take_back_later(session, game.id, kept)
            return MoveResult(MoveStatus.PLAYED, await store.save(session, loaded, before))

        return await self._store.on_game(game_id, ref, undo)


def _refusal(
    game: GameView, user: PlayerInfo, ply: int | None, *, undo: bool = False
) -> MoveStatus | None:
    if ply is not None and game.is_active and ply != game.ply:
        return MoveStatus.STALE  # a tap on a board drawn before the last move
    return assist_rules.assist_refusal(game, user.id, undo=undo)


def _assisted(game: GameView) -> GameView:
    return replace(game, assisted=True)
