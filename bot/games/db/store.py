"""Where games are kept: transactions, loading a stored game as a `GameView` (parsed once),
and writing a changed view back in one versioned UPDATE.

Every write is a Core statement on a SQLAlchemy connection (`writes.CoreTransaction`).
`games.version` is checked by the store itself: every UPDATE (and DELETE) of a game says
`WHERE id = ? AND version = ?`, so of two concurrent writers exactly one wins; the loser's
statement changes no row, and the store raises SQLAlchemy's `StaleDataError` for it (the
exception the ORM's version counter raises for the same thing): "the board changed".
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db import reads, statements
from bot.games.db.batch import GuardFailed, Later
from bot.games.db.live_games import LiveGames, Loaded, stored
from bot.games.db.models import utcnow
from bot.games.db.writes import CoreTransaction, Writes
from bot.games.event_stream import EventStream
from bot.games.events import GameEvent, events_of
from bot.games.matches import play as match_play
from bot.games.model import (
    BoardRef,
    Claim,
    GameView,
    MoveResult,
    MoveStatus,
    PlayerInfo,
    UpdateClaim,
)
from bot.games.play import endings
from bot.games.play.lifecycle import PlayedMove
from bot.games.public_ids import new_public_id
from bot.telemetry.log_context import about_game
from bot.telemetry.metrics import Metrics
from core.notation import format_cells
from core.positions import variant_of

#: A lost version race: another writer changed the game (or the row) first, so the versioned
#: UPDATE found nothing to change.
LOST_VERSION_RACE = StaleDataError
#: A lost unique-constraint race: another writer stored the same thing first (one game per
#: inline message, one rematch per game, one game per number of a match).
LOST_UNIQUE_RACE = IntegrityError
#: A lost version race or a lost unique-constraint race: somebody else changed the game first.
LOST_RACE = (LOST_VERSION_RACE, LOST_UNIQUE_RACE)
#: Any error the database reported: PostgreSQL breaking a deadlock between two instances that
#: lock the same rows crosswise among them (pairing the same players), a lost race too.
DATABASE_ERROR = DBAPIError
#: How often a use-case that must not fail (a new game, /forget) runs again after a lost race.
RACE_ATTEMPTS = 5

T = TypeVar("T")

#: What opens a read session on the games database (`engine.create_session_factory`).
Sessions = async_sessionmaker[AsyncSession]


#: Where the store's functions run their statements: an ORM session, or a write transaction.
Db = reads.Db


class _ChatBusy(Exception):
    """The chat of a game to start has a live game: undo what was written."""


class _Recheck(Exception):
    """A cached game refused the action: roll back, and decide again on the game as stored."""


class Store:
    """Sessions and transactions on the games database."""

    def __init__(self, sessions: Sessions, metrics: Metrics | None = None) -> None:
        self.sessions = sessions
        self.live = LiveGames()
        #: Every committed change, as events, to whoever listens (`bot.games.events`).
        self.events = EventStream()
        self._claim = statements.claim_statement(self.dialect)
        self._writes = Writes(sessions.kw.get("bind"), metrics)

    @property
    def dialect(self) -> str:
        bind = self.sessions.kw.get("bind")
        return bind.dialect.name if bind is not None else "sqlite"

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[CoreTransaction]:
        """One write transaction for the store's functions, on a connection, committed on
        success and rolled back on error. (The ORM's session is for reads: every write is
        Core, and a session's unit of work and identity map cost more than the statements.)"""
        async with self._writes.transaction() as transaction:
            yield transaction
        self._remember(transaction)

    def _remember(self, session: CoreTransaction) -> None:
        """After a commit: the games it wrote, as they are now stored; its events to the
        games' streams."""
        for game_id, loaded in session.info.get(WRITTEN, {}).items():
            if loaded is None:
                self.live.drop(game_id)
            else:
                self.live.put(loaded)
        self.events.publish(session.info.get(EVENTS, ()))

    async def until_won(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run `work` (a whole transaction) again after a lost race, on the data as it is
        now: for use-cases that have no "the board changed" to answer, such as a new game
        that closes the chat's current one while another update moves in it."""
        for _ in range(RACE_ATTEMPTS - 1):
            try:
                return await work()
            except LOST_RACE:
                continue
        return await work()

    async def start_in_idle_chat(
        self,
        player: PlayerInfo,
        draft: GameView,
        moves: Sequence[PlayedMove] = (),
        claim: UpdateClaim | None = None,
    ) -> tuple[Loaded, str | None] | None:
        """Store `player` (`as_stored`) and the new game `draft` with its opening moves, and
        claim `claim`'s update, in one transaction that does not look for the chat's live
        games: the game as stored, and the language the player chose with /language (the game
        speaks it). None, with nothing stored, if the game's chat has a live game (the caller
        takes the long way, which closes it); `GuardFailed` if the update was claimed already."""
        now = utcnow()
        try:
            async with self.transaction() as transaction:
                chosen_language = await transaction.scalar(
                    statements.player_upsert(self.dialect),
                    statements.player_parameters(player, now),
                )
                game = replace(
                    draft, language=chosen_language or draft.language, public_id=new_public_id()
                )
                game_id = await transaction.scalar(
                    statements.INSERT_GAME_IN_IDLE_CHAT, _game_row(game, now)
                )
                if game_id is None:
                    raise _ChatBusy
                _add_moves(transaction, game_id, moves)
                if claim is not None:
                    self.claim_later(transaction, claim, guard=True, now=now)
                started = stored(replace(game, id=game_id), 1)
                _written(transaction)[game_id] = started
                _happened(transaction, None, started.view)
        except _ChatBusy:
            return None
        return started, chosen_language

    async def get_game(self, game_id: int) -> GameView | None:
        """A game as stored now (a read, outside any write transaction)."""
        async with self.sessions() as session:
            loaded = await reads.load(session, game_id)
            return None if loaded is None else loaded.view

    def claim_later(
        self,
        transaction: CoreTransaction,
        claim: UpdateClaim,
        *,
        guard: bool = False,
        now: datetime | None = None,
    ) -> Later:
        """Claim an update with the transaction's writes (`on_game`: the last of them). Its row,
        once sent, holds the language its sender chose with /language; no row: the update was
        claimed already (with `guard`, nothing of the transaction happens then: `GuardFailed`)."""
        parameters = _claim_parameters(claim, now or utcnow())
        return transaction.later(Later(self._claim, parameters, guard=guard))

    async def on_game(
        self,
        game_id: int,
        ref: BoardRef,
        action: Callable[[CoreTransaction, Loaded], Awaitable[MoveResult]],
        claim: UpdateClaim | None = None,
    ) -> MoveResult:
        """Load a game the tap may touch and run `action` on it in one transaction; a lost
        race answers CONFLICT with the game as it is now. With `claim`, the update is claimed
        in the same transaction: a repeated one answers DUPLICATE and does nothing.

        A game this process holds (`LiveGames`) is not read again: the versioned UPDATE, the
        moves and the claim are the transaction's only statements."""
        about_game(game_id)
        try:
            held = self.live.get(game_id)
            if held is not None and ref.matches(held.view):
                try:
                    return await self._act(game_id, ref, action, claim, held)
                except (_Recheck, *LOST_RACE):
                    self.live.drop(game_id)
            try:
                return await self._act(game_id, ref, action, claim)
            except LOST_RACE:
                conflict = await self.conflict(game_id)
                if claim is None:
                    return conflict
                # The claim went with the rolled-back transaction: the answer needs one too.
                async with self.transaction() as transaction:
                    claimed = self.claim_later(transaction, claim, guard=True)
                return _with_claim(conflict, claimed)
        except GuardFailed:
            return MoveResult(MoveStatus.DUPLICATE, claim=Claim(False))

    async def _act(
        self,
        game_id: int,
        ref: BoardRef,
        action: Callable[[CoreTransaction, Loaded], Awaitable[MoveResult]],
        claim: UpdateClaim | None,
        held: Loaded | None = None,
    ) -> MoveResult:
        """One transaction of `on_game`: on the game held, or else on the game read first.
        A refusal decided on a held game raises `_Recheck`.

        The claim is the transaction's last write, after the game's: every transaction that
        changes a game and claims an update locks them in that order, so two instances given
        the same update never wait for each other in a circle. A claimed update undoes the
        writes before it."""
        async with self.transaction() as transaction:
            loaded = held or await reads.load(transaction, game_id)
            if loaded is None or not ref.matches(loaded.view):
                result = MoveResult(MoveStatus.NO_GAME)
            else:
                result = await action(transaction, loaded)
                if held is not None and not result.played:
                    raise _Recheck
            claimed = None if claim is None else self.claim_later(transaction, claim, guard=True)
        return _with_claim(result, claimed)

    async def conflict(self, game_id: int | None) -> MoveResult:
        game = await self.get_game(game_id) if game_id is not None else None
        return MoveResult(MoveStatus.CONFLICT, game)

    async def conflict_on_inline(self, inline_message_id: str) -> MoveResult:
        async with self.sessions() as session:
            loaded = await reads.load_on_inline_message(session, inline_message_id)
            return MoveResult(MoveStatus.CONFLICT, loaded.view if loaded else None)


def _claim_parameters(claim: UpdateClaim, now: datetime) -> dict[str, Any]:
    return {"update_id": claim.update_id, "now": now, "user_id": claim.user_id}


def _with_claim(result: MoveResult, claimed: Later | None) -> MoveResult:
    return result if claimed is None else replace(result, claim=claim_made(claimed))


def claim_made(claimed: Later) -> Claim:
    """The claim a committed transaction made with `claim_later` (new: with `guard`, a repeat
    raised GuardFailed), with the sender's chosen language."""
    return Claim(True, claimed.row[0] if claimed.row else None)


async def insert(
    session: CoreTransaction, draft: GameView, moves: Iterable[PlayedMove] = ()
) -> Loaded:
    """Store a new game (its draft's ids are ignored) and the moves already played in it."""
    draft = replace(draft, public_id=new_public_id())
    game_id = await session.scalar(statements.INSERT_GAME, _game_row(draft, utcnow()))
    assert game_id is not None
    _add_moves(session, game_id, moves)
    inserted = stored(replace(draft, id=game_id), 1)
    _written(session)[game_id] = inserted
    _happened(session, None, inserted.view)
    return inserted


def _game_row(draft: GameView, now: datetime) -> dict[str, Any]:
    return {
        "public_id": draft.public_id,
        "board": format_cells(draft.board),
        "variant": variant_of(draft.board),
        "size": draft.board.size,
        "k": draft.board.k,
        "version": 1,
        "created_at": now,
        "updated_at": now,
        **{name: getattr(draft, name) for name in statements.VIEW_COLUMNS},
    }


async def save(
    session: CoreTransaction, loaded: Loaded, after: GameView, moves: Iterable[PlayedMove] = ()
) -> GameView:
    """Write what changed from `loaded.view` to `after` (and the moves that changed it) in
    one versioned UPDATE; raises StaleDataError if another writer came first. A write that
    ends the game settles its ending first, in the same transaction (`endings`): the one
    place a game is rated. A match game's ending carries its match on (`match_play`): the
    score, and the next game inserted here."""
    before = loaded.view
    ending = endings.ends(before, after)
    following = None
    if ending:
        after = await endings.settle(session, after)
        after, following = await match_play.advance(session, after)
    changed: dict[str, Any] = {
        name: value
        for name in statements.VIEW_COLUMNS
        if (value := getattr(after, name)) != getattr(before, name)
    }
    if after.board != before.board:
        changed["board"] = format_cells(after.board)
        if after.clock_seconds is not None:
            # The turn's clock start is stored with no new version (`turn_starts`), maybe
            # since this game was read: a move always writes it, lest it run on.
            changed["flag_at"] = after.flag_at
    if changed:
        session.later(
            Later(
                statements.update_of(frozenset(changed)),
                {
                    **changed,
                    "game_id": before.id,
                    "old_version": loaded.version,
                    "version": loaded.version + 1,
                    "updated_at": utcnow(),
                },
                one_change=True,
            )
        )
        saved = stored(after, loaded.version + 1)
        _written(session)[before.id] = saved
        after = saved.view
        _happened(session, before, after, ended=ending)
    _add_moves(session, before.id, moves)
    if following is not None:
        await insert(session, following)
    return after


async def delete_game(
    session: CoreTransaction, loaded: Loaded, ended: GameView | None = None
) -> None:
    """Delete a game (its moves go with it) unless another writer changed it first. `ended`:
    how its boards show it went (/forget closes a live game of one player's before deleting
    it), told to its listeners as its ending."""
    session.later(
        Later(
            statements.DELETE_GAME,
            {"game_id": loaded.view.id, "old_version": loaded.version},
            one_change=True,
        )
    )
    _written(session)[loaded.view.id] = None
    if ended is not None:
        # One past the version stored: the ending is news to boards that showed that one.
        _happened(session, loaded.view, replace(ended, version=loaded.version + 1), ended=True)


#: `session.info` key: the games a transaction wrote (None: deleted), for `LiveGames`.
WRITTEN = "games_written"
#: `session.info` key: the events of a transaction's changes, published once it commits.
EVENTS = "game_events"


def _written(session: CoreTransaction) -> dict[int, Loaded | None]:
    written: dict[int, Loaded | None] = session.info.setdefault(WRITTEN, {})
    return written


def _happened(
    session: CoreTransaction, before: GameView | None, after: GameView, *, ended: bool = False
) -> None:
    events: list[GameEvent] = session.info.setdefault(EVENTS, [])
    events.extend(events_of(before, after, ended=ended))


def _add_moves(session: CoreTransaction, game_id: int, moves: Iterable[PlayedMove]) -> None:
    rows = _move_rows(game_id, moves, utcnow())
    if rows:
        session.later(Later(statements.INSERT_MOVES, rows))


def _move_rows(
    game_id: int | None, moves: Iterable[PlayedMove], now: datetime
) -> list[dict[str, Any]]:
    return [
        {
            "game_id": game_id,
            "ply": move.ply,
            "cell": move.cell,
            "mark": move.mark,
            "player_id": move.player_id,
            "created_at": now,
        }
        for move in moves
    ]
