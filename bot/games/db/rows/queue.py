"""The matchmaking queue's rows (`match_queue`, one per player looking for a stranger) as
`pairing.Waiting`, and the pairs that are never to be made (`pairing_blocks`).

Every change that matters to a race says so in what it returns: an entry deleted, taken or
updated reports whether it found the row(s) it expected, so that of two instances (or a
join and a round) acting on the same entry only one goes on (`bot.games.strangers.
matchmaking` holds the rules)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, or_, select, update

from bot.games.db.models import Game, PairingBlock, Player, QueueEntry, aware
from bot.games.db.reads import Db
from bot.games.db.writes import CoreTransaction
from bot.games.model import LIVE
from bot.games.strangers.pairing import Waiting

_QUEUE = QueueEntry.__table__
# Core, not the ORM: it runs in write transactions on bare connections too.
_WAITING = select(_QUEUE, Player.name).join(Player, Player.id == _QUEUE.c.player_id)


def _waiting(row: Any) -> Waiting:
    joined_at = aware(row.joined_at)
    assert joined_at is not None  # a NOT NULL column
    return Waiting(
        player_id=row.player_id,
        name=row.name,
        board=row.board,
        rating=row.rating,
        chat_id=row.chat_id,
        message_id=row.message_id,
        language=row.language,
        joined_at=joined_at,
        shown_at=aware(row.shown_at),
        offered_ai=bool(row.offered_ai),
        clock=row.clock,
        best_of=row.best_of,
    )


async def queued(session: Db, user_id: int) -> Waiting | None:
    """The user's entry, if they are in the queue."""
    row = (await session.execute(_WAITING.where(_QUEUE.c.player_id == user_id))).first()
    return None if row is None else _waiting(row)


async def everybody(session: Db) -> list[Waiting]:
    """Everybody in the queue, in no particular order."""
    return [_waiting(row) for row in await session.execute(_WAITING)]


async def longest_waiting_first(session: Db) -> list[Waiting]:
    """Everybody in the queue, the longest waiting first."""
    rows = await session.execute(_WAITING.order_by(_QUEUE.c.joined_at))
    return [_waiting(row) for row in rows]


async def joined_before(session: Db, before: datetime) -> list[Waiting]:
    """Those who joined before `before`."""
    rows = await session.execute(_WAITING.where(_QUEUE.c.joined_at < before))
    return [_waiting(row) for row in rows]


async def insert_entry(
    session: CoreTransaction,
    sought: Mapping[str, Any],
    user_id: int,
    rating: float,
    chat_id: int,
    language: str | None,
    now: datetime,
) -> None:
    """Queue the user for `sought` (board, clock, best_of), from now."""
    await session.execute(
        insert(QueueEntry).values(
            **sought,
            player_id=user_id,
            rating=rating,
            chat_id=chat_id,
            language=language,
            joined_at=now,
        )
    )


async def restart_entry(
    session: CoreTransaction, user_id: int, sought: Mapping[str, Any], rating: float, now: datetime
) -> None:
    """The user's entry (and waiting message), now for `sought`, its wait begun anew."""
    await session.execute(
        update(QueueEntry)
        .where(QueueEntry.player_id == user_id)
        .values(**sought, rating=rating, joined_at=now, offered_ai=False)
    )


async def delete_entry(session: CoreTransaction, user_id: int) -> bool:
    """Take the user out of the queue: whether their entry was there."""
    deleted = await session.execute(delete(QueueEntry).where(QueueEntry.player_id == user_id))
    return bool(deleted.rowcount == 1)


async def delete_if_unchanged(session: CoreTransaction, waiting: Waiting) -> bool:
    """Take `waiting` out of the queue if their entry is the one that joined then: whether it
    was."""
    deleted = await session.execute(
        delete(QueueEntry).where(
            QueueEntry.player_id == waiting.player_id,
            QueueEntry.joined_at == waiting.joined_at,
        )
    )
    return bool(deleted.rowcount == 1)


async def delete_entries(session: CoreTransaction, user_ids: set[int]) -> None:
    await session.execute(delete(QueueEntry).where(QueueEntry.player_id.in_(user_ids)))


async def take_pair(session: CoreTransaction, ids: tuple[int, int], first: Waiting) -> bool:
    """Delete both entries of a pair, if both still look for what `first` looks for: whether
    both were there (if not, the transaction is to be undone)."""
    taken = await session.execute(
        delete(QueueEntry).where(
            QueueEntry.player_id.in_(ids),
            QueueEntry.board == first.board,
            QueueEntry.clock.is_not_distinct_from(first.clock),
            QueueEntry.best_of == first.best_of,
        )
    )
    return bool(taken.rowcount == 2)


async def requeue(session: CoreTransaction, waiting: Waiting) -> None:
    """Put `waiting` back in the queue as they were."""
    await session.execute(
        insert(QueueEntry).values(
            player_id=waiting.player_id,
            board=waiting.board,
            clock=waiting.clock,
            best_of=waiting.best_of,
            rating=waiting.rating,
            chat_id=waiting.chat_id,
            message_id=waiting.message_id,
            language=waiting.language,
            joined_at=waiting.joined_at,
            shown_at=waiting.shown_at,
            offered_ai=waiting.offered_ai,
        )
    )


async def attach_message(
    session: CoreTransaction, user_id: int, message_id: int, drawn_at: datetime
) -> bool:
    """The waiting message of the user's entry, drawn as at `drawn_at`: whether the entry is
    there."""
    entry = update(QueueEntry).where(QueueEntry.player_id == user_id)
    attached = await session.execute(entry.values(message_id=message_id, shown_at=drawn_at))
    return bool(attached.rowcount == 1)


async def claim_redraw(
    session: CoreTransaction, user_id: int, now: datetime, drawn_before: datetime, offer: bool
) -> bool:
    """Mark the user's waiting message drawn at `now` if it was last drawn before
    `drawn_before` (or, with `offer`, if the AI was not offered yet: offered now): whether
    this UPDATE found it due."""
    due = or_(QueueEntry.shown_at.is_(None), QueueEntry.shown_at <= drawn_before)
    values: dict[str, object] = {"shown_at": now}
    if offer:
        due = or_(due, QueueEntry.offered_ai.is_(False))
        values["offered_ai"] = True
    claimed = await session.execute(
        update(QueueEntry).where(QueueEntry.player_id == user_id, due).values(**values)
    )
    return bool(claimed.rowcount == 1)


async def playing_strangers(session: Db, ids: tuple[int, int]) -> set[int]:
    """Those of `ids` who play a stranger now."""
    rows = await session.execute(
        select(Game.x_player_id, Game.o_player_id).where(
            Game.status.in_(LIVE),
            Game.second_chat_id.is_not(None),
            or_(Game.x_player_id.in_(ids), Game.o_player_id.in_(ids)),
        )
    )
    return {player for row in rows for player in row} & set(ids)


async def blocked_pairs(session: Db) -> set[frozenset[int]]:
    """The pairs never to be made, either way round."""
    blocks = await session.execute(select(PairingBlock.player_id, PairingBlock.blocked_id))
    return {frozenset(row) for row in blocks}


async def block(session: CoreTransaction, player_id: int, blocked_id: int, now: datetime) -> None:
    """`player_id` is never to be paired with `blocked_id` again (once is enough)."""
    exists = await session.scalar(
        select(PairingBlock.player_id).where(
            PairingBlock.player_id == player_id, PairingBlock.blocked_id == blocked_id
        )
    )
    if exists is None:
        await session.execute(
            insert(PairingBlock).values(player_id=player_id, blocked_id=blocked_id, created_at=now)
        )
