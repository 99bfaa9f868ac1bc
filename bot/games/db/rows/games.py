"""The games table beyond a game's own versioned life (`bot.games.db.store` writes a game,
`bot.games.db.reads` loads one): the searches the use-cases make, as `Loaded` games (a
player's finished games, a chat's, the clocks that wait, the AI's turns), and the writes
that are no new version of a game (a clock started, its redraw claimed, words told once, a
group that migrated), each as one statement that says whether it found its row.

Each search is a `reads.load_all` with its criteria; each write is the statement the
use-case made before, unchanged."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.db import reads, statements
from bot.games.db.batch import Later
from bot.games.db.live_games import Loaded
from bot.games.db.models import Game, Move
from bot.games.db.reads import Db
from bot.games.db.writes import CoreTransaction
from bot.games.model import LIVE, USER, EndReason, GameStatus, GameView
from bot.games.play.lifecycle import PlayedMove
from core.notation import format_cells

#: A game's seats: a user plays in a game if any of them is theirs (three or four in games
#: of more people).
SEATS = (Game.x_player_id, Game.o_player_id, Game.t_player_id, Game.s_player_id)


# Searches


async def finished_games_of(session: Db, user_id: int) -> list[Loaded]:
    """The finished games the user had a seat in, in the order they ended."""
    return await reads.load_all(
        session,
        Game.status == GameStatus.FINISHED,
        or_(
            Game.x_player_id == user_id,
            Game.o_player_id == user_id,
            Game.t_player_id == user_id,
            Game.s_player_id == user_id,
        ),
        order_by=(Game.updated_at, Game.id),  # streaks follow the order games ended in
    )


async def finished_between_people_in(session: Db, chat_id: int) -> list[Loaded]:
    """The chat's finished games of two different people."""
    return await reads.load_all(
        session,
        Game.chat_id == chat_id,
        Game.status == GameStatus.FINISHED,
        Game.x_kind == USER,
        Game.o_kind == USER,
        Game.x_player_id != Game.o_player_id,
    )


async def on_message(session: Db, chat_id: int, message_id: int) -> list[Loaded]:
    """The game whose board is the chat's message `message_id` (none or one)."""
    return await reads.load_all(session, Game.chat_id == chat_id, Game.message_id == message_id)


async def rematch_offers_of(session: Db, game_id: int) -> list[Loaded]:
    """The rematch offered under the game (none or one: one per game)."""
    return await reads.load_all(session, Game.rematch_of_id == game_id)


async def by_public_id(session: Db, public_id: str) -> list[Loaded]:
    """The game of a public id (none or one)."""
    return await reads.load_all(session, Game.public_id == public_id)


async def live_games_of(session: Db, user_id: int) -> list[Loaded]:
    """The user's running games and challenges, newest first."""
    return await reads.load_all(
        session,
        Game.status.in_(LIVE),
        or_(*(seat == user_id for seat in SEATS)),
        order_by=(Game.id.desc(),),
    )


async def stranger_games_of(session: Db, user_id: int) -> list[Loaded]:
    """The user's running games against a stranger (one at most), newest first."""
    return await reads.load_all(
        session,
        Game.status.in_(LIVE),
        Game.second_chat_id.is_not(None),
        or_(*(seat == user_id for seat in SEATS)),
        order_by=(Game.id.desc(),),
    )


async def last_finished_in(session: Db, chat_id: int) -> list[Loaded]:
    """The chat's finished games (a game between strangers is in both players' chats), the
    last to end first."""
    return await reads.load_all(
        session,
        or_(Game.chat_id == chat_id, Game.second_chat_id == chat_id),
        Game.status == GameStatus.FINISHED,
        order_by=(Game.updated_at.desc(), Game.id.desc()),
    )


async def ended_in_since(
    session: Db, chat_id: int, reasons: Iterable[EndReason], since: datetime
) -> list[Loaded]:
    """The chat's games that ended for one of `reasons` and changed since `since`, newest
    first."""
    return await reads.load_all(
        session,
        or_(Game.chat_id == chat_id, Game.second_chat_id == chat_id),
        Game.end_reason.in_(reasons),
        Game.updated_at >= since,
        order_by=(Game.id.desc(),),
    )


async def games_of(session: Db, user_id: int) -> list[Loaded]:
    """Every game the user has a seat in, made or was invited to."""
    return await reads.load_all(
        session,
        or_(
            Game.x_player_id == user_id,
            Game.o_player_id == user_id,
            Game.t_player_id == user_id,
            Game.s_player_id == user_id,
            Game.created_by_id == user_id,
            Game.invited_player_id == user_id,
        ),
    )


async def clocks_waiting(session: Db, turn_began_by: datetime) -> list[Loaded]:
    """Running games on the clock whose clock waits still, their turn begun by
    `turn_began_by`."""
    return await reads.load_all(
        session,
        Game.status == GameStatus.ACTIVE,
        Game.clock_seconds.is_not(None),
        Game.flag_at.is_(None),
        Game.turn_started_at <= turn_began_by,
    )


async def overdue(session: AsyncSession, now: datetime, turn_timeout: timedelta) -> list[int]:
    """Live games between people whose player to move (or whose challenge) has waited at
    least `turn_timeout`, or whose clock is out at `now`: their ids."""
    rows = await session.scalars(
        select(Game.id).where(
            Game.status.in_(LIVE),
            Game.x_kind == USER,
            Game.o_kind == USER,
            or_(Game.turn_started_at <= now - turn_timeout, Game.flag_at <= now),
        )
    )
    return list(rows)


async def active_games(session: Db, ids: list[int]) -> list[Loaded]:
    """Those of the games `ids` that are running."""
    return await reads.load_all(session, Game.id.in_(ids), Game.status == GameStatus.ACTIVE)


async def ai_to_move(session: Db) -> list[Loaded]:
    """Running games against (or of) the AI with a board message: those where the AI is to
    move among them."""
    return await reads.load_all(
        session,
        Game.status == GameStatus.ACTIVE,
        or_(Game.x_kind != USER, Game.o_kind != USER),
        or_(Game.message_id.is_not(None), Game.inline_message_id.is_not(None)),
    )


_LIVE_COUNT = select(func.count()).select_from(Game).where(Game.status.in_(LIVE))


async def count_live(session: Db) -> int:
    """Open challenges and running games, every instance's (one COUNT)."""
    return int((await session.execute(_LIVE_COUNT)).scalar_one())


async def count_moves(session: Db, game_id: int) -> int:
    return (
        await session.scalar(select(func.count()).select_from(Move).where(Move.game_id == game_id))
        or 0
    )


async def played_moves(session: Db, game_id: int) -> list[PlayedMove]:
    """The game's moves in order, with who played each."""
    rows = await session.execute(statements.MOVES_OF, {"game_id": game_id})
    return [PlayedMove(row.ply, row.cell, row.mark, row.player_id) for row in rows]


def take_back_later(session: CoreTransaction, game_id: int, kept: int) -> None:
    """Delete the game's moves after the first `kept` (an undo), with the transaction's
    writes."""
    session.later(Later(statements.DELETE_MOVES_AFTER, {"game_id": game_id, "kept": kept}))


# Writes that are no new version of a game


def attach_message_later(
    session: CoreTransaction, game_id: int, message_id: int, *, second: bool, now: datetime
) -> None:
    """Remember which message shows the game's board (`second`: the second board of a game
    between strangers), with the transaction's writes: a plain UPDATE that leaves the version
    alone."""
    at = {"game_id": game_id, "updated_at": now}
    if second:
        later = Later(statements.ATTACH_SECOND_MESSAGE, {**at, "board_message_id": message_id})
    else:
        later = Later(statements.ATTACH_MESSAGE, {**at, "message_id": message_id})
    session.later(later)


async def start_clock(session: CoreTransaction, game: GameView, at: datetime) -> bool:
    """Store the running clock of `game` (`flag_at`), last drawn `at`, if the game is still at
    this turn (the same board) and its clock waits: whether it started."""
    result = await session.execute(
        update(Game)
        .where(
            Game.id == game.id,
            Game.status == GameStatus.ACTIVE,
            Game.board == format_cells(game.board),
            Game.flag_at.is_(None),
            Game.clock_seconds.is_not(None),
        )
        # Not a change to the game's boards: `updated_at` stays (`bot.games.db.outbox`).
        .values(flag_at=game.flag_at, clock_drawn_at=at, updated_at=Game.updated_at)
    )
    return bool(result.rowcount)


async def claim_clock_redraws(
    session: CoreTransaction, now: datetime, every: timedelta
) -> list[int]:
    """The running clocks in private chats that nobody redrew within `every`, claimed for a
    redraw at `now` in one UPDATE: their games' ids."""
    due = or_(Game.clock_drawn_at.is_(None), Game.clock_drawn_at <= now - every)
    private = or_(Game.chat_id.is_(None), Game.chat_id > 0)
    claimed = await session.execute(
        update(Game)
        .where(Game.status == GameStatus.ACTIVE, Game.flag_at.is_not(None), due, private)
        .values(clock_drawn_at=now)
        .returning(Game.id)
    )
    return [row.id for row in claimed]


async def tell_once(session: CoreTransaction, game_id: int, seat: int) -> bool:
    """Mark `seat` (a bit of `room_told`) told in the game: whether it was not told before."""
    told = Game.room_told
    result = await session.execute(
        update(Game)
        .where(Game.id == game_id, told.op("&")(seat) == 0)
        .values(room_told=told.op("|")(seat))
    )
    return bool(result.rowcount == 1)


async def migrate_chat(session: CoreTransaction, old_chat_id: int, new_chat_id: int) -> int:
    """The games of a group that became a supergroup follow it: how many."""
    result = await session.execute(
        update(Game).where(Game.chat_id == old_chat_id).values(chat_id=new_chat_id)
    )
    return result.rowcount or 0


async def forget_moves_of(session: CoreTransaction, user_id: int) -> None:
    """The user's moves stay in their games, without their id."""
    await session.execute(update(Move).where(Move.player_id == user_id).values(player_id=None))
