"""Each Telegram update acts once: an update id is claimed in the database before the bot acts
on it, so a repeated delivery (a webhook retry, maybe to another instance) is skipped.

The claim commits before the update is handled: an instance that dies in between loses that
one update, as it would have without the claim (Telegram does not redeliver an update the bot
has acknowledged), and never acts on an update twice.

A button that makes something (a game, a replay, a picture, a search) acts once too: two taps
of it on one message are two updates, so each tap of it also claims the button itself, by the
message it is on and its data, for `TAP_MOMENT` (`claim_button`). The second tap of a double
tap finds it claimed, whichever instance it reaches and even after a restart, and makes
nothing; a moment later the button works again. These claims live beside the update ids, under
negative ids (Telegram's are positive), and are forgotten with them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, delete

from bot.games.db.batch import Later
from bot.games.db.models import HandledUpdate, utcnow
from bot.games.db.statements import upsert_for
from bot.games.db.store import Store
from bot.games.model import Claim, UpdateClaim

#: How long a handled update id is remembered. Telegram stops redelivering long before, and
#: update ids may start again from a random number after a week without updates.
KEPT_FOR = timedelta(days=1)
#: How often an instance deletes the ids older than `KEPT_FOR` (`bot.chores.housekeeping`).
PRUNE_EVERY = timedelta(hours=1)
#: How long a tap of a button that makes something keeps it from making another: a finger
#: that lands twice, and a second tap by someone who thought the first had not worked.
TAP_MOMENT = timedelta(seconds=10)


_PRUNE = delete(HandledUpdate).where(HandledUpdate.handled_at < bindparam("before"))
_RELEASE = delete(HandledUpdate).where(
    HandledUpdate.update_id == bindparam("key"), HandledUpdate.handled_at == bindparam("now")
)


@dataclass(frozen=True)
class ButtonClaim:
    """A button's claim (`HandledUpdates.claim_button`): its key, and when it was taken."""

    key: int
    taken_at: datetime


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

    async def claim_button(
        self, message: str, data: str, now: datetime | None = None
    ) -> ButtonClaim | None:
        """Claim the button with callback `data` on `message` (`chat:message`, or an inline
        message's id) for `TAP_MOMENT`: None when a tap of it claimed it within that moment
        (whatever it made is made, or on its way)."""
        now = now or utcnow()
        claim = ButtonClaim(button_key(message, data), now)
        parameters = {"key": claim.key, "now": now, "stale": now - TAP_MOMENT}
        async with self._store.transaction() as transaction:
            claimed = transaction.later(Later(_button_claim(self._store.dialect), parameters))
        return None if claimed.row is None else claim

    async def release_button(self, claim: ButtonClaim) -> None:
        """Let go of a claim whose tap made nothing after all (it failed): tapped again, the
        button works at once."""
        async with self._store.transaction() as transaction:
            transaction.later(Later(_RELEASE, {"key": claim.key, "now": claim.taken_at}))

    async def prune(self, now: datetime | None = None) -> None:
        """Forget the update ids older than `KEPT_FOR`. Not part of a claim: taps and `/start`
        with a game are claimed inside their move's statement, so pruning must not wait for
        an update of another kind (`bot.chores.housekeeping` runs this every `PRUNE_EVERY`)."""
        async with self._store.transaction() as transaction:
            transaction.later(Later(_PRUNE, {"before": (now or utcnow()) - KEPT_FOR}))


def button_key(message: str, data: str) -> int:
    """A button's id among the update ids: negative (Telegram's are positive), 63 bits of a
    hash of where it is and what it says."""
    digest = hashlib.blake2b(f"{message}\n{data}".encode(), digest_size=8).digest()
    return -1 - (int.from_bytes(digest, "big") >> 1)


@lru_cache(maxsize=4)
def _button_claim(dialect: str) -> Any:
    """`INSERT … ON CONFLICT DO UPDATE … WHERE <the claim there is stale> RETURNING`: a row
    back when the button was free (never claimed, or claimed more than a moment ago)."""
    upsert = upsert_for(dialect)(HandledUpdate).values(
        update_id=bindparam("key"), handled_at=bindparam("now")
    )
    return upsert.on_conflict_do_update(
        index_elements=[HandledUpdate.update_id],
        set_={"handled_at": upsert.excluded.handled_at},
        where=HandledUpdate.handled_at < bindparam("stale"),
    ).returning(HandledUpdate.update_id)
