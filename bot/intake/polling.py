"""Long polling that loses nothing: a batch of updates is handled or stored before Telegram is
told it arrived.

Telegram forgets the updates of a batch when the next getUpdates asks for the offset after
them. PTB's updater asks at once, while the batch is still being handled: a bot killed then
(`kill -9`, a power cut) lost the updates it was handling. `Polling` asks only once every
update of the batch is handled or in the durable inbox (`bot.intake.webhook_inbox`, the same
rows and rounds as in webhook mode): the batch is handled at once, and what is still being
handled after `KEEP_AFTER_SECONDS` is stored; from then on the inbox answers for it, handled
now or, after a crash, by the next start's rounds. Updates stored but not yet acknowledged come
back from Telegram after a crash too; the update claim (`bot.handlers.delivery`) makes the
second handling do nothing.

Each update is checked by `bot.intake.incoming` (one that the database cannot hold is dropped
with one line). While Telegram fails, the loop waits a little longer after each failure (the
`backoff` doubled up to `MAX_BACKOFF_FACTOR` times it), and `Outage` logs one WARNING a minute,
not a traceback a call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence

from telegram import Bot
from telegram.error import TelegramError

from bot.chores.outage import OUTAGE_LOG_SECONDS, Outage, one_line
from bot.intake.incoming import NotAnUpdate, read_update
from bot.intake.webhook_inbox import WebhookInbox
from bot.telegram.json_calls import poll_updates

log = logging.getLogger(__name__)

#: Seconds Telegram holds a getUpdates open while there is nothing to send (PTB's default).
POLL_TIMEOUT = 10
#: Seconds a getUpdates may take beyond its long poll's `timeout` (PTB's get_updates adds the
#: request's read timeout, the transport's default, to the poll's).
READ_TIMEOUT = 5.0
#: Seconds a polled batch is handled before those of its updates still being handled are
#: stored: the next getUpdates (which acknowledges the batch) waits that long at most.
KEEP_AFTER_SECONDS = 0.05
#: The longest wait between failed polls, as a multiple of the first.
MAX_BACKOFF_FACTOR = 16


class Polling:
    """getUpdates in a loop, each batch stored in `inbox` (which has it handled) before the
    next getUpdates acknowledges it."""

    def __init__(
        self,
        bot: Bot,
        inbox: WebhookInbox,
        allowed_updates: Sequence[str],
        *,
        backoff: float,
        outage_log_seconds: float = OUTAGE_LOG_SECONDS,
        poll_timeout: int = POLL_TIMEOUT,
        keep_after: float = KEEP_AFTER_SECONDS,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self._bot, self._inbox = bot, inbox
        self._allowed_updates = list(allowed_updates)
        self._backoff, self._poll_timeout = backoff, poll_timeout
        self._keep_after, self._read_timeout = keep_after, read_timeout
        self._first_batch = True
        self.outage = Outage("Telegram's getUpdates", outage_log_seconds, logger=log)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Drop a webhook left from webhook mode (getUpdates is refused while one is set),
        then poll."""
        await self._bot.delete_webhook()
        self._task = asyncio.create_task(self._poll(), name="polling")

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def stop(self) -> None:
        """Stop polling; the updates fetched so far are stored (or come again)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _poll(self) -> None:
        offset: int | None = None
        failures = 0
        while True:
            try:
                offset = await self.poll_once(offset)
            except TelegramError as error:
                self.outage.failed(error)
                failures += 1
                factor = min(2 ** (failures - 1), MAX_BACKOFF_FACTOR)
                await asyncio.sleep(self._backoff * factor)
                continue
            except Exception as error:  # the inbox's driver: the batch comes again
                log.warning("could not store polled updates: %s", one_line(error))
                await asyncio.sleep(self._backoff * MAX_BACKOFF_FACTOR)
                continue
            failures = 0

    async def poll_once(self, offset: int | None) -> int | None:
        """One getUpdates after `offset`, its updates stored and on their way to be handled;
        the offset that acknowledges them (`offset` if none came)."""
        call: dict[str, object] = {
            "timeout": self._poll_timeout,
            "allowed_updates": self._allowed_updates,
        }
        if offset is not None:
            call["offset"] = offset
        # The batch as JSON, each update read once (`read_update`, as a webhook's are) and
        # stored as it came: PTB's get_updates would build each Update, then the inbox would
        # need it written out again (a tenth of the bot's time in a load profile).
        batch = await poll_updates(self._bot, call, self._read_timeout + self._poll_timeout)
        self.outage.succeeded()
        if not batch:
            return offset
        received = []
        for data in batch:
            try:
                update = read_update(data, self._bot)
            except NotAnUpdate as error:
                log.warning("dropped update %s: %s", _update_id(data), error)
                continue
            received.append((update, json.dumps(data, separators=(",", ":"))))
        # Handled at once; those still being handled in a moment are stored (one INSERT), and
        # only then acknowledged. (An error: nothing acknowledged, the batch comes again.) The
        # first batch since start holds what the last process left unacknowledged: recovered.
        await self._inbox.hand_over(received, self._keep_after, recovered=self._first_batch)
        self._first_batch = False
        # An update dropped as unreadable is acknowledged all the same: it would come again,
        # and be dropped again.
        numbered = [number for data in batch if (number := _update_id(data)) is not None]
        return max(numbered) + 1 if numbered else offset


def _update_id(data: object) -> int | None:
    update_id = data.get("update_id") if isinstance(data, dict) else None
    return update_id if isinstance(update_id, int) and not isinstance(update_id, bool) else None
