"""Each Telegram update acts once: an update id is claimed in the database before the bot acts
on it, so a repeated delivery (a webhook retry, maybe to another instance) is skipped.

The claim commits before the update is handled: an instance that dies in between loses that
one update, as it would have without the claim (Telegram does not redeliver an update the bot
has acknowledged), and never acts on an update twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from bot.games.db.models import HandledUpdate, Player, utcnow
from bot.games.store import Store

#: How long a handled update id is remembered. Telegram stops redelivering long before, and
#: update ids may start again from a random number after a week without updates.
KEPT_FOR = timedelta(days=1)
#: How often an instance deletes the ids older than `KEPT_FOR`.
PRUNE_EVERY = timedelta(hours=1)


@dataclass(frozen=True)
class Claim:
    new: bool
    #: The language the update's sender chose with /language, if any.
    chosen_language: str | None = None


def _claim_statement(dialect: str) -> Any:
    """`INSERT … ON CONFLICT DO NOTHING RETURNING <the sender's chosen language>`: one
    statement says whether the update is new and, if it is, how to speak to its sender."""
    insert_into = sqlite_insert if dialect == "sqlite" else postgresql_insert
    chosen = (
        select(Player.chosen_language).where(Player.id == bindparam("user_id")).scalar_subquery()
    )
    return (
        insert_into(HandledUpdate)
        .values(update_id=bindparam("update_id"), handled_at=bindparam("now"))
        .on_conflict_do_nothing(index_elements=[HandledUpdate.update_id])
        .returning(chosen)
    )


_PRUNE = delete(HandledUpdate).where(HandledUpdate.handled_at < bindparam("before"))


class HandledUpdates:
    def __init__(self, games: Store) -> None:
        self._store = games
        self._pruned_at: datetime | None = None
        self._claim = _claim_statement(games.dialect)

    async def claim(
        self, update_id: int, user_id: int | None = None, now: datetime | None = None
    ) -> Claim:
        """Whether this update is new (and now claimed by the caller) or some instance claimed
        it already; and, read in the same statement, the language its sender chose with
        /language (so that every reply to it speaks that language)."""
        now = now or utcnow()
        async with self._store.connection() as connection:
            claimed = await connection.execute(
                self._claim, {"update_id": update_id, "now": now, "user_id": user_id}
            )
            row = claimed.first()
            if self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY:
                self._pruned_at = now
                await connection.execute(_PRUNE, {"before": now - KEPT_FOR})
            if row is None:
                return Claim(False)
            return Claim(True, row[0])
