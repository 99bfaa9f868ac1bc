"""Ending a game by the players' word: Resign's question (asked and stored on the game, or
withdrawn with No) and the resignation itself; a draw's offer (stored on the game, declined or
withdrawn by a move) and its acceptance. Each ending goes as any ending does (`store.save`)."""

from __future__ import annotations

from bot.games.db import store
from bot.games.db.live_games import Loaded
from bot.games.db.store import Store
from bot.games.db.writes import CoreTransaction
from bot.games.model import BoardRef, MoveResult, MoveStatus, PlayerInfo, UpdateClaim
from bot.games.play import draw_rules, lifecycle, resign_rules


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

    async def offer_draw(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, ply: int
    ) -> MoveResult:
        """🤝 on a board drawn at move `ply`: when the user plays this game against another
        person, the offer is stored on the game (every drawing of the opponent's board offers
        Accept / Decline, until they answer or a move is made) and PLAYED; ASKED_ALREADY when
        it is open (a double tap, or the opponent offering back: their board offers it
        already); else why not."""

        async def offer(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = lifecycle.player_refusal(game.view, user.id)
            if refusal is None and not draw_rules.may_offer_draw(game.view):
                refusal = MoveStatus.INVALID
            if refusal is None and ply != game.view.ply:
                refusal = MoveStatus.STALE
            if refusal is not None:
                return MoveResult(refusal, game.view)
            if draw_rules.draw_offer(game.view) is not None:
                return MoveResult(MoveStatus.ASKED_ALREADY, game.view)
            offered = draw_rules.offered_draw(game.view, user.id)
            return MoveResult(MoveStatus.PLAYED, await store.save(session, game, offered))

        return await self._store.on_game(game_id, ref, offer)

    async def answer_draw(
        self,
        game_id: int,
        ref: BoardRef,
        user: PlayerInfo,
        accepted: bool,
        claim: UpdateClaim | None = None,
    ) -> MoveResult:
        """The opponent's answer to a draw's open offer: accepted, the game ends as a draw
        by agreement; declined, the offer goes (PLAYED either way). STALE when no offer is
        open to them (answered, withdrawn by a move, or their own)."""

        async def answer(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = lifecycle.player_refusal(game.view, user.id)
            if refusal is not None:
                return MoveResult(refusal, game.view)
            if draw_rules.draw_offer(game.view) in (None, user.id):
                return MoveResult(MoveStatus.STALE, game.view)
            view = game.view
            after = (
                draw_rules.agreed_draw(view) if accepted else draw_rules.offered_draw(view, None)
            )
            return MoveResult(MoveStatus.PLAYED, await store.save(session, game, after))

        return await self._store.on_game(game_id, ref, answer, claim)
