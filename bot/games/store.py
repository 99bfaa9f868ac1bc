"""Where games are kept: transactions, loading a stored game as a `GameView` (parsed once),
and writing a changed view back in one versioned UPDATE.

`games.version` is SQLAlchemy's version counter: every UPDATE says `WHERE id = ? AND
version = ?`, so of two concurrent writers exactly one wins; the loser's flush raises
`StaleDataError`, which the use-cases answer as "the board changed".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db.models import Game, Move, Player, utcnow
from bot.games.lifecycle import PlayedMove
from bot.games.model import LIVE, BoardRef, GameView, MoveResult, MoveStatus, PlayerInfo
from core.notation import format_cells, parse_cells

#: A lost version race or a lost unique-constraint race: somebody else changed the game first.
LOST_RACE = (StaleDataError, IntegrityError)
#: How often a use-case that must not fail (a new game, /forget) runs again after a lost race.
RACE_ATTEMPTS = 5

T = TypeVar("T")

# The view's fields that live in columns of the same name; `board` is stored as text and the
# players' names come from the players table.
_COLUMNS = (
    "chat_id",
    "message_id",
    "inline_message_id",
    "x_kind",
    "o_kind",
    "x_player_id",
    "o_player_id",
    "status",
    "result",
    "end_reason",
    "language",
    "created_by_id",
    "invited_player_id",
    "invited_username",
    "rematch_of_id",
    "nudges",
    "turn_started_at",
)


@dataclass(frozen=True)
class Loaded:
    """A stored game: its row (to write back through) and its view (to decide with)."""

    row: Game
    view: GameView


class Store:
    """Sessions and transactions on the games database."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions
        # SQLite lets one writer in at a time and makes the others poll with growing sleeps;
        # queueing this process's writers on a lock instead keeps the latency tail short.
        # PostgreSQL needs no such thing: its row locks and the version check do the job.
        bind = sessions.kw.get("bind")
        self._write_lock = (
            asyncio.Lock() if bind is not None and bind.dialect.name == "sqlite" else None
        )

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """One write transaction, committed on success and rolled back on error."""
        if self._write_lock is None:
            async with self.sessions.begin() as session:
                yield session
            return
        async with self._write_lock, self.sessions.begin() as session:
            yield session

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

    async def get_game(self, game_id: int) -> GameView | None:
        """A game as stored now (a read, outside any write transaction)."""
        async with self.sessions() as session:
            loaded = await load(session, game_id)
            return None if loaded is None else loaded.view

    async def on_game(
        self,
        game_id: int,
        ref: BoardRef,
        action: Callable[[AsyncSession, Loaded], Awaitable[MoveResult]],
    ) -> MoveResult:
        """Load a game the tap may touch and run `action` on it in one transaction; a lost
        race answers CONFLICT with the game as it is now."""
        try:
            async with self.transaction() as session:
                loaded = await load(session, game_id)
                if loaded is None or not ref.matches(loaded.view):
                    return MoveResult(MoveStatus.NO_GAME)
                return await action(session, loaded)
        except LOST_RACE:
            return await self.conflict(game_id)

    async def conflict(self, game_id: int | None) -> MoveResult:
        game = await self.get_game(game_id) if game_id is not None else None
        return MoveResult(MoveStatus.CONFLICT, game)

    async def conflict_on_inline(self, inline_message_id: str) -> MoveResult:
        async with self.sessions() as session:
            loaded = await load_on_inline_message(session, inline_message_id)
            return MoveResult(MoveStatus.CONFLICT, loaded.view if loaded else None)


def view_of(row: Game) -> GameView:
    """The plain view of a row whose players were loaded with it (they are, eagerly)."""
    values: dict[str, Any] = {name: getattr(row, name) for name in _COLUMNS}
    values["turn_started_at"] = _aware(row.turn_started_at)
    values["nudges"] = row.nudges or 0
    return GameView(
        id=row.id,
        board=parse_cells(row.board, k=row.k or None),
        x_name=row.x_player.name if row.x_player is not None else None,
        o_name=row.o_player.name if row.o_player is not None else None,
        invited_name=row.invited_player.name if row.invited_player is not None else None,
        **values,
    )


async def load(session: AsyncSession, game_id: int) -> Loaded | None:
    row = await session.get(Game, game_id)
    return None if row is None else Loaded(row, view_of(row))


async def load_all(
    session: AsyncSession, *criteria: Any, order_by: Sequence[Any] = (Game.id,)
) -> list[Loaded]:
    """Games matching `criteria`, oldest first unless `order_by` says otherwise."""
    rows = await session.scalars(select(Game).where(*criteria).order_by(*order_by))
    return [Loaded(row, view_of(row)) for row in rows.unique()]


async def live_games_in_chat(session: AsyncSession, chat_id: int) -> list[Loaded]:
    """The chat's running games and open challenges, newest first."""
    return await load_all(
        session, Game.chat_id == chat_id, Game.status.in_(LIVE), order_by=(Game.id.desc(),)
    )


async def load_on_inline_message(session: AsyncSession, inline_message_id: str) -> Loaded | None:
    found = await load_all(session, Game.inline_message_id == inline_message_id)
    return found[0] if found else None


async def insert(
    session: AsyncSession, draft: GameView, moves: Iterable[PlayedMove] = ()
) -> Loaded:
    """Store a new game (its draft's id is ignored) and the moves already played in it."""
    row = Game(
        board=format_cells(draft.board),
        size=draft.board.size,
        k=draft.board.k,
        **{name: getattr(draft, name) for name in _COLUMNS},
    )
    session.add(row)
    await session.flush()
    _add_moves(session, row.id, moves)
    await session.flush()
    return Loaded(row, replace(draft, id=row.id))


async def save(
    session: AsyncSession, loaded: Loaded, after: GameView, moves: Iterable[PlayedMove] = ()
) -> GameView:
    """Write what changed from `loaded.view` to `after` (and the moves that changed it) in
    one versioned UPDATE; raises StaleDataError if another writer came first."""
    before, row = loaded.view, loaded.row
    if after.board != before.board:
        row.board = format_cells(after.board)
    for name in _COLUMNS:
        value = getattr(after, name)
        if value != getattr(before, name):
            setattr(row, name, value)
    _add_moves(session, row.id, moves)
    await session.flush()
    return after


def _add_moves(session: AsyncSession, game_id: int, moves: Iterable[PlayedMove]) -> None:
    for move in moves:
        session.add(
            Move(
                game_id=game_id,
                ply=move.ply,
                cell=move.cell,
                mark=move.mark,
                player_id=move.player_id,
            )
        )


async def upsert_player(session: AsyncSession, user: PlayerInfo) -> PlayerInfo:
    """Insert or refresh the player's name and language, safe against concurrent inserts.
    Returns the player as stored (names are trimmed to what the column holds), speaking the
    language they chose with /language if they did."""
    insert_into = sqlite_insert if session.bind.dialect.name == "sqlite" else postgresql_insert
    now = utcnow()
    # PostgreSQL text cannot hold NUL; nothing legitimate carries one.
    name = user.name.replace("\x00", "")[:128] or str(user.id)
    language = (user.language_code or "").replace("\x00", "")[:16] or None
    statement = insert_into(Player).values(
        id=user.id, name=name, language_code=language, created_at=now, updated_at=now
    )
    statement = statement.on_conflict_do_update(
        index_elements=[Player.id],
        set_={"name": name, "language_code": language, "updated_at": now},
    )
    chosen = await session.scalar(statement.returning(Player.chosen_language))
    return replace(user, name=name, language_code=chosen or language)


async def stored_player(session: AsyncSession, user_id: int) -> PlayerInfo | None:
    player = await session.get(Player, user_id)
    if player is None:
        return None
    return PlayerInfo(player.id, player.name, player.chosen_language or player.language_code)


def _aware(moment: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes; every time stored here is UTC.
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)
