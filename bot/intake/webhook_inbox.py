"""Durable receipt: an update is stored before Telegram is answered 200 (webhook mode), or before
the next getUpdates acknowledges it (long polling, `bot.intake.polling`), and handled by some
instance whatever crashes (`bot.games.db.rows.inbox` holds the rows).

Telegram sends an update again only while it gets no 200 (or, polling, until the next
getUpdates acknowledges it); once answered, an update lost in a crash was lost for good. So
`receive` stores the update first (updates arriving together share one INSERT: one commit for a
burst), then the web server answers, then the update goes through the bot's update processor
(its chat's lane, `bot.telegram.update_lanes`) and its row is deleted once handled (deletes are
gathered too). A round every `every` seconds, on every instance, takes up the rows older than
`STALE_ROUNDS` rounds that nobody is handling: a crash left them. The update claim
(`bot.handlers.delivery`) makes a second handling of the same update do nothing, so taking one
up twice is harmless. With long polling, `hand_over` has a batch handled at once and stores
only the updates still being handled a moment later: a row costs two writes, and almost every
update is done long before. An update taken up `MAX_ATTEMPTS` times without being handled (it
crashes the bot?) is given up, with a warning.

An update whose work the database would not store (`bot.telegram.unstored`: its file gone or
read-only) is not done: its row stays for a later round, and a polled batch holding one is not
acknowledged (`NotStored`), so Telegram delivers it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from datetime import timedelta
from typing import Any

from telegram import Update
from telegram.ext import Application

from bot.chores.rounds import Rounds
from bot.games.db.models import utcnow
from bot.games.db.rows.inbox import Inbox
from bot.intake.incoming import update_kind
from bot.telegram.unstored import Unstored
from bot.telegram.update_lanes import update_recovered
from bot.telemetry.log_context import about_update
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

STALE_ROUNDS = 3
MAX_ATTEMPTS = 3
#: How long deletes of handled updates gather before they are written (one statement).
DONE_DELAY_SECONDS = 0.05
#: How long a stopping bot waits for the updates it is handling before leaving them to the
#: next start (their rows stay).
STOP_WAIT_SECONDS = 5.0


class NotStored(Exception):
    """Updates of a polled batch that were handled but not stored: the batch must not be
    acknowledged."""

    def __init__(self, update_ids: list[int]) -> None:
        super().__init__(f"updates {update_ids} could not be stored: not acknowledged")


class WebhookInbox:
    # Any Application: the inbox only hands it updates. (`bot.context.BotApplication` would close
    # an import cycle: `bot.resources` names this class.)
    def __init__(
        self,
        inbox: Inbox,
        application: Application[Any, Any, Any, Any, Any, Any],
        *,
        every: float = 5.0,
        unstored: Unstored | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._inbox, self._application, self._every = inbox, application, every
        self._unstored = unstored or Unstored()
        #: Times each update from its arrival to the end of its handling (None: not).
        self._metrics = metrics
        self._started = asyncio.Event()
        self._arrived: list[tuple[int, str, asyncio.Future[None]]] = []
        self._storing: asyncio.Task[None] | None = None
        self._done: set[int] = set()
        self._forgetting: asyncio.Task[None] | None = None
        self._handling: set[int] = set()
        # The updates with a row (all in webhook mode; in polling mode, those handled slowly).
        self._stored: set[int] = set()
        self._tasks: set[asyncio.Task[bool]] = set()
        self._rounds = Rounds("webhook inbox", self.take_up_left, every)

    async def receive(self, update: Update, body: str) -> None:
        """Store the update (raises if the database cannot: then Telegram must not get 200),
        then have it handled."""
        arrived = asyncio.get_running_loop().time()
        await self._stored_soon(update.update_id, body)
        self._stored.add(update.update_id)
        self._handle_later(update, arrived=arrived)

    async def hand_over(
        self, batch: list[tuple[Update, str]], keep_after: float, *, recovered: bool = False
    ) -> None:
        """Long polling: have a batch handled at once, and store those not handled within
        `keep_after` seconds (raises if the database cannot: then the batch must not be
        acknowledged). Almost every update is handled by then, and costs no row: the next
        getUpdates, which acknowledges the batch, waits that long at most. One handled whose
        work the database would not store is NotStored: not to be acknowledged either."""
        handling = {
            task: update.update_id
            for update, _ in batch
            if (task := self._handle_later(update, recovered)) is not None
        }
        if not handling:
            return
        done, slow = await asyncio.wait(handling, timeout=keep_after)
        if slow:
            bodies = {update.update_id: body for update, body in batch}
            left = [uid for uid in bodies if uid in self._handling]
            await asyncio.gather(*(self._stored_soon(uid, bodies[uid]) for uid in left))
            for update_id in left:
                self._stored.add(update_id)
                if update_id not in self._handling:
                    self._forget(update_id)  # handled while its row was written
        refused = sorted(uid for task, uid in handling.items() if task in done and _refused(task))
        if refused:
            raise NotStored(refused)

    def _stored_soon(self, update_id: int, body: str) -> asyncio.Future[None]:
        """The update's row, written with those arriving in the same turn of the loop (one
        INSERT); the future fails if the database cannot."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._arrived.append((update_id, body, future))
        if self._storing is None or self._storing.done():
            self._storing = asyncio.create_task(self._store(), name="inbox store")
        return future

    async def _store(self) -> None:
        await asyncio.sleep(0)  # the updates arriving in this turn of the loop go together
        while self._arrived:
            batch, self._arrived = self._arrived, []
            try:
                await self._inbox.receive((uid, body) for uid, body, _ in batch)
            except Exception as error:
                for *_, future in batch:
                    future.set_exception(error)
            else:
                for *_, future in batch:
                    future.set_result(None)

    def _handle_later(
        self, update: Update, recovered: bool = False, arrived: float | None = None
    ) -> asyncio.Task[bool] | None:
        """Handle the update in a task of its own; `arrived`: when it came (the loop's clock;
        now if None)."""
        if update.update_id in self._handling:
            return None  # delivered again while this instance handles it
        self._handling.add(update.update_id)
        if arrived is None:
            arrived = asyncio.get_running_loop().time()
        task = asyncio.create_task(
            self._handle(update, recovered, arrived), name=f"update {update.update_id}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _handle(self, update: Update, recovered: bool, arrived: float) -> bool:
        """Have the update handled; False when the database would not store its work."""
        # This task's own context: for this update only.
        update_recovered.set(recovered)
        update_id = update.update_id
        chat = update.effective_chat
        about_update(update_id, chat.id if chat is not None else None)
        self._unstored.take(update_id)  # what an earlier attempt met is no news of this one
        try:
            await self._started.wait()
            application = self._application
            await application.update_processor.process_update(
                update, application.process_update(update)
            )
        except Exception:
            log.exception("update %s could not be handled", update_id)
        finally:
            self._handling.discard(update_id)
            if self._metrics is not None:
                elapsed = asyncio.get_running_loop().time() - arrived
                self._metrics.update_handled(update_kind(update), elapsed)
        if self._unstored.take(update_id):
            self._stored.discard(update_id)  # its row stays, for a later round
            return False
        # Not reached when cancelled (the bot stops): the row stays for the next start.
        if update_id in self._stored:
            self._forget(update_id)
        return True

    def _forget(self, update_id: int) -> None:
        self._stored.discard(update_id)
        self._done.add(update_id)
        if self._forgetting is None or self._forgetting.done():
            self._forgetting = asyncio.create_task(self._write_done(), name="inbox done")

    async def _write_done(self) -> None:
        await asyncio.sleep(DONE_DELAY_SECONDS)
        while self._done:
            done, self._done = self._done, set()
            try:
                await self._inbox.done(done)
            except Exception:
                # A round takes them up again later; the update claim skips them then.
                log.warning("could not forget %d handled updates", len(done), exc_info=True)

    def start(self) -> None:
        """The bot handles updates now: the ones received meanwhile go, and rounds begin."""
        self._started.set()
        self._rounds.start()

    async def stop(self) -> None:
        await self._rounds.stop()
        if self._tasks:
            _, late = await asyncio.wait(set(self._tasks), timeout=STOP_WAIT_SECONDS)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        for pending in (self._storing, self._forgetting):
            if pending is not None:
                with contextlib.suppress(Exception):
                    await pending

    async def take_up_left(self) -> int:
        """One round: handle the stored updates a crash left. Returns how many."""
        before = utcnow() - timedelta(seconds=STALE_ROUNDS * self._every)
        left = [row for row in await self._inbox.left(before) if row[0] not in self._handling]
        given_up = [uid for uid, _, attempts in left if attempts >= MAX_ATTEMPTS]
        if given_up:
            log.warning(
                "updates %s were taken up %d times in vain; given up", given_up, MAX_ATTEMPTS
            )
            await self._inbox.done(given_up)
        again = [(uid, body) for uid, body, attempts in left if attempts < MAX_ATTEMPTS]
        await self._inbox.take_up(uid for uid, _ in again)
        for update_id, body in again:
            self._stored.add(update_id)
            log.info("update %s was received but not handled (a crash?): handling it", update_id)
            self._handle_later(Update.de_json(json.loads(body), self._application.bot), True)
        return len(again)


def _refused(task: asyncio.Task[bool]) -> bool:
    """Whether a finished handling met a database that would not store its work."""
    return not task.cancelled() and task.exception() is None and not task.result()
