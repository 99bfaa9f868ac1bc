"""Resigning a game: Resign's question (asked and stored on the game, or withdrawn with No),
and the resignation itself, which ends the game as any ending does (`store.save`)."""

from __future__ import annotations

from bot.games.db import store
from bot.games.db.live_games import Loaded
from bot.games.db.store import Store
from bot.games.db.writes import CoreTransaction
from bot.games.model import BoardRef, MoveResult, MoveStatus, PlayerInfo, UpdateClaim
from bot.games.play import lifecycle, resign_rules


class Resigning:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def ask_to_resign(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, ply: int
    ) -> MoveResult:
        """Resign's first tap, on a board drawn at move `ply`: when the user may resign now,
        the question is stored on the game (every drawing of its board asks it, until it is
        answered or a move is made) and PLAYED; ASKED_ALREADY when it is open (a double tap:
        its board shows it already); else why not."""

        async def ask(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = lifecycle.player_refusal(game.view, user.id)
            if refusal is None and ply != game.view.ply:
                refusal = MoveStatus.STALE
            if refusal is not None:
                return MoveResult(refusal, game.view)
            if resign_rules.resign_question(game.view) == user.id:
                return MoveResult(MoveStatus.ASKED_ALREADY, game.view)
            asked = resign_rules.asked_to_resign(game.view, user.id)
            return MoveResult(MoveStatus.PLAYED, await store.save(session, game, asked))

        return await self._store.on_game(game_id, ref, ask)

    async def play_on(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """No on Resign's question: it goes (PLAYED); STALE when it is not open for them."""

        async def withdraw(session: CoreTransaction, game: Loaded) -> MoveResult:
            if resign_rules.resign_question(game.view) != user.id:
                return MoveResult(MoveStatus.STALE, game.view)
            kept = resign_rules.asked_to_resign(game.view, None)
            return MoveResult(MoveStatus.PLAYED, await store.save(session, game, kept))

        return await self._store.on_game(game_id, ref, withdraw)

    async def resign(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, claim: UpdateClaim | None = None
    ) -> MoveResult:
        """The user gives up a game they play in; the opponent wins."""

        async def resign(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = lifecycle.player_refusal(game.view, user.id)
            if refusal is not None:
                return MoveResult(refusal, game.view)
            after = await store.save(session, game, lifecycle.resign(game.view, user.id))
            return MoveResult(MoveStatus.PLAYED, after)

        return await self._store.on_game(game_id, ref, resign, claim)
