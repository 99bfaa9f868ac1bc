"""Matchmaking: the queue of players looking for a stranger to play, in the database and
shared by every instance, and the games it pairs: one game, a board in each player's
private chat (`GameView.second_chat_id`).

Pairing deletes both players' queue rows in the game's own transaction and insists that both
were there: of two instances (or a join and a round) pairing the same player at once, one
wins and the other's transaction is undone, so nobody is paired twice. A player has one row
at most (the primary key), and `pairing.pairs` never pairs a player with themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from bot.games.db import reads, store
from bot.games.db.models import utcnow
from bot.games.db.rows import players as player_rows
from bot.games.db.rows import queue as queue_rows
from bot.games.db.store import DATABASE_ERROR, LOST_RACE, Store
from bot.games.matches import play as match_play
from bot.games.model import USER, GameView, PlayerInfo
from bot.games.play import lifecycle
from bot.games.play.clock_rules import DEFAULT_CLOCK, Clock, clock_key, clock_of_key, with_clock
from bot.games.ratings.rules import pool_of
from bot.games.ratings.use_cases import Ratings
from bot.games.strangers.pairing import Waiting, board_of_key, pairs
from core.board import other


class JoinStatus(StrEnum):
    QUEUED = "queued"  # waiting now (or still: the wait goes on from when they joined)
    PAIRED = "paired"  # someone was waiting: the game is on
    PLAYING = "playing"  # already playing a stranger: finish that first


@dataclass(frozen=True)
class Paired:
    """A game the queue started, and its two players as they waited (❌ first): their
    waiting messages are to be told."""

    game: GameView
    players: tuple[Waiting, Waiting]


@dataclass(frozen=True)
class JoinResult:
    status: JoinStatus
    waiting: Waiting | None = None
    game: GameView | None = None
    paired: Paired | None = None
    #: Queued already for the very same search: nothing changed.
    same_search: bool = False


class LeftQueue(StrEnum):
    """Why a player left the queue without a game: their waiting message says so."""

    CANCELLED = "cancelled"  # Cancel, or /stop
    TIMED_OUT = "timed_out"  # nobody came within the wait's limit
    OTHER_GAME = "other_game"  # they started another game (or took the AI offered)
    AWAY = "away"  # they blocked the bot (said once they are back: `Chats.closed_while_away`)


class _Gone(Exception):
    """A player of the pair left the queue (paired by another instance, or cancelled)."""


class Matchmaking:
    def __init__(self, games: Store, ratings: Ratings, clock: Clock = DEFAULT_CLOCK) -> None:
        # `clock`: every game between strangers is on it (`clock_rules`)
        self._store, self._ratings, self._clock = games, ratings, clock

    async def join(
        self,
        user: PlayerInfo,
        chat_id: int,
        board: str,
        language: str | None,
        clock: Clock | None = None,
        best_of: int = 1,
    ) -> JoinResult:
        """The user looks for an opponent on `board` (a `pairing.board_key`) with `clock`
        (None: the default), for a match of `best_of` games, from their private chat: paired
        at once with someone in reach, else queued."""
        now = utcnow()
        control = clock_key(clock) if clock is not None else None
        if control == clock_key(self._clock):
            control = None  # the default: paired with everyone on it
        pool = pool_of(board_of_key(board))
        rating = (await self._ratings.rating_in(user.id, pool)).rating
        same = False
        try:
            async with self._store.transaction() as session:
                await player_rows.upsert_player(session, user)
                joined = await queue_rows.queued(session, user.id)
                entry = {"board": board, "clock": control, "best_of": best_of}
                same = joined is not None and entry == _sought(joined)
                if joined is not None and entry != _sought(joined):
                    # Another board, clock or length: the same entry (and waiting message),
                    # its wait begun anew.
                    await queue_rows.restart_entry(session, user.id, entry, rating, now)
                elif joined is None:
                    await queue_rows.insert_entry(
                        session, entry, user.id, rating, chat_id, language, now
                    )
                # After the entry's write, which waits for a pairing of the user that is
                # being committed: a game against a stranger is seen, and the entry undone.
                if await queue_rows.playing_strangers(session, (user.id, user.id)):
                    raise _Gone
        except _Gone:
            return JoinResult(JoinStatus.PLAYING, game=await self.stranger_game_of(user.id))
        made = await self.pair_waiting(only=user.id)
        if made:
            return JoinResult(JoinStatus.PAIRED, game=made[0].game, paired=made[0])
        waiting = await self.waiting_of(user.id)
        return JoinResult(JoinStatus.QUEUED, waiting=waiting, same_search=same)

    async def cancel(
        self, user_id: int, *, away: bool = False, from_message: int | None = None
    ) -> Waiting | None:
        """The user stops looking: their entry as it was (None: not queued, paired meanwhile, or
        `from_message` is an older search's). `away`: they blocked the bot (their waiting
        message is kept: `player_rows.keep_search_message`)."""
        async with self._store.transaction() as session:
            gone = await queue_rows.queued(session, user_id)
            if gone is None or _another_search(gone, from_message):
                return None
            if not await queue_rows.delete_entry(session, user_id):
                return None
            if away:
                await player_rows.keep_search_message(session, gone.player_id, gone.message_id)
            return gone

    async def expire(self, joined_before: datetime) -> list[Waiting]:
        """Take out of the queue whoever joined before `joined_before` (waited past the
        limit): their entries as they were, for their waiting messages to say so. An entry
        paired or cancelled meanwhile is not among them."""
        async with self._store.sessions() as session:
            late = await queue_rows.joined_before(session, joined_before)
        gone = []
        for waiting in late:
            async with self._store.transaction() as session:
                deleted = await queue_rows.delete_if_unchanged(session, waiting)
            if deleted:
                gone.append(waiting)
        return gone

    async def undo_pairing(self, game_id: int, stays: Waiting, gone: Waiting) -> bool:
        """`gone`'s board of a game the queue started could not be posted (they blocked the
        bot, or their chat is gone): the game is deleted as if never made (no move, no
        rating), `gone`'s waiting message is kept for their return, and `stays` goes back into
        the queue where they were (wait and message kept: they come first). False when the
        game moved on or `stays` is queued or playing a stranger again."""
        try:
            async with self._store.transaction() as session:
                loaded = await reads.load(session, game_id)
                if loaded is None or loaded.view.ply or not loaded.view.is_active:
                    return False
                await store.delete_game(session, loaded)
                await player_rows.keep_search_message(session, gone.player_id, gone.message_id)
                if await queue_rows.queued(session, stays.player_id) is not None:
                    return False
                await queue_rows.requeue(session, stays)
        except (*LOST_RACE, DATABASE_ERROR):
            return False
        return True

    async def waiting_of(self, user_id: int) -> Waiting | None:
        async with self._store.sessions() as session:
            return await queue_rows.queued(session, user_id)

    async def waiting(self) -> list[Waiting]:
        """Everybody in the queue, the longest waiting first."""
        async with self._store.sessions() as session:
            return await queue_rows.longest_waiting_first(session)

    async def attach_message(self, user_id: int, message_id: int, drawn_at: datetime) -> bool:
        """The "Looking for an opponent…" message of the user's queue entry, drawn as at
        `drawn_at` (False: the entry is gone, paired or let go meanwhile)."""
        async with self._store.transaction() as session:
            return await queue_rows.attach_message(session, user_id, message_id, drawn_at)

    async def claim_redraw(
        self, user_id: int, now: datetime, *, drawn_before: datetime, offer: bool = False
    ) -> bool:
        """Take the redraw of the user's waiting message, due when it was last drawn before
        `drawn_before` (or, with `offer`, when the AI is to be offered): True for the one
        instance whose UPDATE found it due, so that two instances never redraw it at once
        and an entry cancelled or paired meanwhile is not redrawn."""
        async with self._store.transaction() as session:
            return await queue_rows.claim_redraw(session, user_id, now, drawn_before, offer)

    async def pair_waiting(self, only: int | None = None) -> list[Paired]:
        """Make every pair `pairing.pairs` allows now (with `only`, just that player's): the
        games started, each in a transaction of its own."""
        now = utcnow()
        async with self._store.sessions() as session:
            queue = await queue_rows.everybody(session)
            blocked = await queue_rows.blocked_pairs(session)
        made = []
        for first, second in pairs(queue, blocked, now):
            if only is not None and only not in (first.player_id, second.player_id):
                continue
            game = await self._pair(first, second, now)
            if game is not None:
                made.append(Paired(game, (first, second)))
        return made

    async def _pair(self, first: Waiting, second: Waiting, now: datetime) -> GameView | None:
        try:
            async with self._store.transaction() as session:
                ids = (first.player_id, second.player_id)
                busy = await queue_rows.playing_strangers(session, ids)
                if busy:
                    # Queued by a /play that raced their pairing: it goes; the other stays.
                    await queue_rows.delete_entries(session, busy)
                    return None
                if not await queue_rows.take_pair(session, ids, first):
                    raise _Gone  # undoes the delete: the one still there stays queued
                draft = lifecycle.new_game(
                    board=board_of_key(first.board),
                    x_kind=USER,
                    o_kind=USER,
                    x_player=PlayerInfo(first.player_id, first.name),
                    o_player=PlayerInfo(second.player_id, second.name),
                    creator=None,
                    chat_id=first.chat_id,
                    now=now,
                )
                draft = replace(
                    draft,
                    language=first.language,
                    second_chat_id=second.chat_id,
                    second_language=second.language,
                )
                draft = with_clock(draft, self.clock_of(first))
                draft = await match_play.begin(session, first.best_of, draft)
                return (await store.insert(session, draft)).view
        except (_Gone, *LOST_RACE, DATABASE_ERROR):
            # Someone left the pair, or PostgreSQL broke a deadlock between two instances
            # pairing crosswise: the survivor paired, the next round tries the rest.
            return None

    def clock_of(self, waiting: Waiting) -> Clock:
        """The time control `waiting` looks for."""
        return (clock_of_key(waiting.clock) if waiting.clock else None) or self._clock

    async def stranger_game_of(self, user_id: int) -> GameView | None:
        """The user's running game against a stranger, if any."""
        async with self._store.sessions() as session:
            found = await reads.stranger_game_of(session, user_id)
        return found.view if found is not None else None

    async def block(self, user: PlayerInfo, game_id: int) -> str | None:
        """ "Don't pair me with them again", from a game the user played against a stranger:
        the opponent's name, or None when that is not such a game of theirs."""
        game = await self._store.get_game(game_id)
        mark = None if game is None or not game.is_between_strangers else game.mark_of(user.id)
        if game is None or mark is None:
            return None
        opponent = other(mark)
        other_id = game.player_id_of(opponent)
        if other_id is not None:
            async with self._store.transaction() as session:
                await queue_rows.block(session, user.id, other_id, utcnow())
        return game.name_of(opponent) or ""


def _sought(waiting: Waiting) -> dict[str, Any]:
    """What a player in the queue looks for, as its columns."""
    return {"board": waiting.board, "clock": waiting.clock, "best_of": waiting.best_of}


def _another_search(entry: Waiting, message_id: int | None) -> bool:
    """Is `message_id` (a tapped waiting message) not `entry`'s own?"""
    return message_id is not None and entry.message_id not in (None, message_id)
