"""Each Telegram update acts once: an update id is claimed in the database before the bot acts
on it, so a repeated delivery (a webhook retry, maybe to another instance) is skipped.

The claim commits before the update is handled: an instance that dies in between loses that
one update, as it would have without the claim (Telegram does not redeliver an update the bot
has acknowledged), and never acts on an update twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import bindparam, delete

from bot.games.db.batch import Later
from bot.games.db.models import HandledUpdate, utcnow
from bot.games.db.store import Store
from bot.games.model import Claim, UpdateClaim

#: How long a handled update id is remembered. Telegram stops redelivering long before, and
#: update ids may start again from a random number after a week without updates.
KEPT_FOR = timedelta(days=1)
#: How often an instance deletes the ids older than `KEPT_FOR` (`bot.chores.housekeeping`).
PRUNE_EVERY = timedelta(hours=1)


_PRUNE = delete(HandledUpdate).where(HandledUpdate.handled_at < bindparam("before"))


class HandledUpdates:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def claim(
        self, update_id: int, user_id: int | None = None, now: datetime | None = None
    ) -> Claim:
        """Whether this update is new (and now claimed by the caller) or some instance claimed
        it already; and, read in the same statement, the language its sender chose with
        /language (so that every reply to it speaks that language)."""
        now = now or utcnow()
        async with self._store.transaction() as transaction:
            claim = UpdateClaim(update_id, user_id)
            claimed = self._store.claim_later(transaction, claim, now=now)
        return Claim(False) if claimed.row is None else Claim(True, claimed.row[0])

    async def prune(self, now: datetime | None = None) -> None:
        """Forget the update ids older than `KEPT_FOR`. Not part of a claim: taps and `/start`
        with a game are claimed inside their move's statement, so pruning must not wait for
        an update of another kind (`bot.chores.housekeeping` runs this every `PRUNE_EVERY`)."""
        async with self._store.transaction() as transaction:
            transaction.later(Later(_PRUNE, {"before": (now or utcnow()) - KEPT_FOR}))
