"""The webhook inbox's rows: updates stored before Telegram is answered, deleted once handled
(`bot.intake.webhook_inbox` is the running side)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import bindparam, delete, select, update

from bot.games.db import statements
from bot.games.db.batch import Later
from bot.games.db.models import InboxUpdate, utcnow
from bot.games.db.store import Store

_DONE = delete(InboxUpdate).where(InboxUpdate.update_id == bindparam("done_id"))
_LEFT = (
    select(InboxUpdate.update_id, InboxUpdate.body, InboxUpdate.attempts)
    .where(InboxUpdate.received_at < bindparam("before"))
    .order_by(InboxUpdate.update_id)
    .limit(bindparam("limit"))
)
_TAKEN_UP = (
    update(InboxUpdate)
    .where(InboxUpdate.update_id == bindparam("taken_id"))
    .values(attempts=InboxUpdate.attempts + 1)
)


class Inbox:
    def __init__(self, games: Store) -> None:
        self._store = games
        # A repeated delivery of a stored update stores nothing: the first row stands.
        self._receive = (
            statements.upsert_for(games.dialect)(InboxUpdate)
            .values(
                update_id=bindparam("update_id"),
                body=bindparam("body"),
                received_at=bindparam("received_at"),
            )
            .on_conflict_do_nothing(index_elements=[InboxUpdate.update_id])
        )

    async def receive(
        self, updates: Iterable[tuple[int, str]], now: datetime | None = None
    ) -> None:
        """Store these updates (id, JSON body), all in one statement; committed on return."""
        at = now or utcnow()
        rows = [{"update_id": uid, "body": body, "received_at": at} for uid, body in updates]
        if rows:
            async with self._store.transaction() as transaction:
                transaction.later(Later(self._receive, rows))

    async def done(self, update_ids: Iterable[int]) -> None:
        """These updates were handled (or deliberately dropped): forget them."""
        rows = [{"done_id": update_id} for update_id in update_ids]
        if rows:
            async with self._store.transaction() as transaction:
                transaction.later(Later(_DONE, rows))

    async def left(self, before: datetime, limit: int = 100) -> list[tuple[int, str, int]]:
        """Updates received before `before` and not yet handled: (id, body, attempts so far)."""
        async with self._store.sessions() as session:
            rows = await session.execute(_LEFT, {"before": before, "limit": limit})
            return [(row.update_id, row.body, row.attempts) for row in rows]

    async def take_up(self, update_ids: Iterable[int]) -> None:
        """Count one more attempt at these updates (a crash left them)."""
        rows = [{"taken_id": update_id} for update_id in update_ids]
        if rows:
            async with self._store.transaction() as transaction:
                transaction.later(Later(_TAKEN_UP, rows))
