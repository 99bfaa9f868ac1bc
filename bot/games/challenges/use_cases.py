"""Games between people: challenges in a group (open or addressed to one person), joining,
declining, cancelling, inline-mode challenges, and rematches."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from bot.games.challenges import rules as challenge_rules
from bot.games.db import reads, store
from bot.games.db.live_games import Loaded
from bot.games.db.models import utcnow
from bot.games.db.rows import games as game_rows
from bot.games.db.rows import players as player_rows
from bot.games.db.store import LOST_RACE, LOST_UNIQUE_RACE, LOST_VERSION_RACE, Store
from bot.games.db.writes import CoreTransaction
from bot.games.matches import play as match_play
from bot.games.model import (
    USER,
    BoardRef,
    EndReason,
    GameStatus,
    GameView,
    MoveResult,
    MoveStatus,
    PlayerInfo,
)
from bot.games.play import lifecycle
from core.board import MARKS, Board, O, X


class Challenges:
    """Use-cases of challenges and rematches; each is one transaction."""

    def __init__(self, games: Store) -> None:
        self._store = games

    async def create(
        self,
        chat_id: int,
        user: PlayerInfo,
        *,
        invited: PlayerInfo | None = None,
        invited_username: str | None = None,
        board: Board | None = None,
        seats: int = 2,
        best_of: int = 1,
    ) -> GameView:
        """A group challenge: the sender plays X; anyone (or only the invited person) joins.
        With three or four `seats`, it starts once every seat is taken. With `best_of` 3 or 5
        it is the first game of a match (`match_play`)."""
        username = (invited_username or "").replace("\x00", "").lstrip("@")[:64] or None
        async with self._store.transaction() as session:
            player = await player_rows.upsert_player(session, user)
            invited_player = await player_rows.upsert_player(session, invited) if invited else None
            draft = lifecycle.new_game(
                chat_id=chat_id,
                board=board or Board.empty(),
                x_kind=USER,
                o_kind=USER,
                x_player=player,
                creator=player,
                now=utcnow(),
                status=GameStatus.OPEN,
                invited=invited_player,
                invited_username=username,
                seats=seats,
            )
            draft = await match_play.begin(session, best_of if seats == 2 else 1, draft)
            return (await store.insert(session, draft)).view

    async def register_player(self, user: PlayerInfo) -> None:
        """Remember a user's name and language (an inline challenger, before any game)."""
        async with self._store.transaction() as session:
            await player_rows.upsert_player(session, user)

    async def join(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """Accept a challenge: the joiner plays O and the game starts."""

        async def join(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = challenge_rules.join_refusal(game.view, user)
            if refusal is not None:
                return MoveResult(refusal, game.view)
            joiner = await player_rows.upsert_player(session, user)
            after = await store.save(
                session, game, challenge_rules.join(game.view, joiner, utcnow())
            )
            return MoveResult(MoveStatus.PLAYED, after)

        return await self._store.on_game(game_id, ref, join)

    async def decline(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """The invited person says no."""

        async def decline(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = challenge_rules.decline_refusal(game.view, user)
            if refusal is not None:
                return MoveResult(refusal, game.view)
            declined = lifecycle.close(game.view, GameStatus.DECLINED, EndReason.DECLINED)
            return MoveResult(MoveStatus.PLAYED, await store.save(session, game, declined))

        return await self._store.on_game(game_id, ref, decline)

    async def cancel(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """The challenger withdraws a challenge nobody has joined yet."""

        async def cancel(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = challenge_rules.cancel_refusal(game.view, user.id)
            if refusal is not None:
                return MoveResult(refusal, game.view)
            cancelled = lifecycle.close(game.view, GameStatus.CANCELLED, EndReason.CANCELLED)
            return MoveResult(MoveStatus.PLAYED, await store.save(session, game, cancelled))

        return await self._store.on_game(game_id, ref, cancel)

    async def join_inline(
        self,
        inline_message_id: str,
        user: PlayerInfo,
        creator_id: int,
        creator_mark: str,
        board: Board | None = None,
    ) -> MoveResult:
        """A tap on Join of an inline challenge: the first person other than the challenger
        starts the game with them (the game is created here, keyed by the inline message)."""
        if creator_mark not in MARKS:
            return MoveResult(MoveStatus.INVALID)
        try:
            async with self._store.transaction() as session:
                existing = await reads.load_on_inline_message(session, inline_message_id)
                if existing is not None:
                    refusal = challenge_rules.join_refusal(existing.view, user)
                    return MoveResult(refusal or MoveStatus.GAME_OVER, existing.view)
                if user.id == creator_id:
                    return MoveResult(MoveStatus.OWN_GAME)
                creator = await player_rows.stored_player(session, creator_id)
                if creator is None:
                    return MoveResult(MoveStatus.NO_GAME)
                joiner = await player_rows.upsert_player(session, user)
                x, o = (creator, joiner) if creator_mark == X else (joiner, creator)
                draft = lifecycle.new_game(
                    inline_message_id=inline_message_id,
                    board=board or Board.empty(),
                    x_kind=USER,
                    o_kind=USER,
                    x_player=x,
                    o_player=o,
                    creator=creator,
                    now=utcnow(),
                )
                return MoveResult(MoveStatus.PLAYED, (await store.insert(session, draft)).view)
        except LOST_RACE:
            return await self._store.conflict_on_inline(inline_message_id)

    async def rematch(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """A rematch of a finished game between people, as an offer: the same two people with
        sides swapped, open until the other player accepts (or declines, or it lapses); after
        a match, a new match of as many games. A tap
        on Rematch by that other player while the offer is open accepts it. A game of three
        or four opens anew with the tapper seated: the others take their seats with Join. On
        an inline message the offer takes the message over; in a chat it gets one of its own."""
        for _ in range(2):
            try:
                async with self._store.transaction() as session:
                    return await self._rematch(session, game_id, ref, user)
            except LOST_UNIQUE_RACE:
                continue  # the other player's offer came first: the next try answers it
            except LOST_VERSION_RACE:
                break
        return await self._store.conflict(game_id)

    async def _rematch(
        self, session: CoreTransaction, game_id: int, ref: BoardRef, user: PlayerInfo
    ) -> MoveResult:
        old = await reads.load(session, game_id)
        if old is not None and ref.inline_message_id and not ref.matches(old.view):
            # A second Rematch tap: the first one's offer took the inline message over.
            taken = await reads.load_on_inline_message(session, ref.inline_message_id)
            if taken is not None and taken.view.rematch_of_id == old.view.id:
                return await _answer_offer(session, taken, user)
        if old is None or not ref.matches(old.view):
            return MoveResult(MoveStatus.NO_GAME)
        view = old.view
        if not view.is_finished or not view.is_between_people:
            return MoveResult(MoveStatus.INVALID, view)
        if view.mark_of(user.id) is None:
            return MoveResult(MoveStatus.NOT_A_PLAYER, view)
        offered = await game_rows.rematch_offers_of(session, view.id)
        if offered:
            return await _answer_offer(session, offered[0], user)
        tapper = await player_rows.upsert_player(session, user)
        # The inline message moves to the new game (one game per inline message).
        await store.save(session, old, replace(view, inline_message_id=None))
        draft = replace(
            rematch_offer(view, tapper, utcnow()),
            inline_message_id=view.inline_message_id,
        )
        # A rematch of a match is another match of as many games.
        best_of = view.match.best_of if view.match is not None and view.seats == 2 else 1
        draft = await match_play.begin(session, best_of, draft)
        return MoveResult(MoveStatus.PLAYED, (await store.insert(session, draft)).view)


async def _answer_offer(session: CoreTransaction, offer: Loaded, user: PlayerInfo) -> MoveResult:
    """A Rematch tap on a game whose rematch was offered already: the one it was offered to
    accepts it; the one who offered it waits; a started or closed offer stays as it is."""
    game = offer.view
    if not game.is_open:
        taken = game.is_active or game.is_finished
        return MoveResult(MoveStatus.REMATCH_TAKEN if taken else MoveStatus.REMATCH_CLOSED, game)
    if game.created_by_id == user.id:
        return MoveResult(MoveStatus.REMATCH_OFFERED, game)
    refusal = challenge_rules.join_refusal(game, user)
    if refusal is not None:
        return MoveResult(refusal, game)
    joiner = await player_rows.upsert_player(session, user)
    after = await store.save(session, offer, challenge_rules.join(game, joiner, utcnow()))
    return MoveResult(MoveStatus.PLAYED, after)


def rematch_offer(game: GameView, tapper: PlayerInfo, now: datetime) -> GameView:
    """A rematch of a finished game between people, offered by `tapper` (not stored yet).
    Two people: sides swapped (who played second starts), the tapper seated and the other
    player invited to take their seat. Three or four: a new game of as many seats with the
    tapper as ❌, which the others join if they want to."""
    mine = game.mark_of(tapper.id)
    other_mark = O if mine == X else X
    other_id = game.player_id_of(other_mark)
    invited = None
    seat = {"x_player": tapper}
    if not game.is_many and other_id is not None:  # (else the other deleted their data: anyone)
        invited = PlayerInfo(other_id, game.name_of(other_mark) or "?")
        # Sides swapped: the tapper takes the other side; the seat they leave waits for the
        # invited player's Accept.
        seat = {"o_player" if mine == X else "x_player": tapper}
    offer = lifecycle.new_game(
        chat_id=game.chat_id,
        board=game.board.shape.empty_board(),
        x_kind=USER,
        o_kind=USER,
        creator=tapper,
        now=now,
        status=GameStatus.OPEN,
        invited=invited,
        seats=game.seats,
        **seat,  # type: ignore[arg-type]
    )
    return replace(offer, language=game.language, rematch_of_id=game.id)
