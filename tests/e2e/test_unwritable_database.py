"""A SQLite database that can no longer store anything under a running `python -m bot`: its
file deleted, or made read-only. Nothing is taken that is not stored: a tap is answered that
it could not be saved (in the player's language), its board stays as it was, a webhook
delivery gets a 5xx and long polling does not acknowledge it, so Telegram delivers it again.
The process lives on and says what is wrong once; /healthz says 503 with the reason.

Read-only as it happens to a root process: `chattr +i` (the immutable flag binds root too;
chmod would not). Written through SQLite's shared memory (the -shm file, mapped), such a file
used to kill the process with SIGBUS. Without root, chmod makes the files read-only instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy.engine import make_url

from bot.locales import ru
from tests.e2e.test_webhook import SECRET
from tests.support import unwritable
from tests.support.chat import board_cells, cell_data, current
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import (
    BotProcess,
    WebhookBot,
    bot_env,
    bots_done,
    get_json,
    post_update,
)

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        os.environ.get("TEST_DATABASE_URL", "").startswith("postgresql"),
        reason="a SQLite file's faults",
    ),
]

WAIT = 15.0  # generous: a wait only takes this long when something is broken
#: A Russian-speaking player: "could not be saved" comes in their language.
ALICE = FakeTelegram.user(1001, "Alice", language_code="ru")


def files_of(database_url: str) -> list[Path]:
    """The database file and the two SQLite keeps beside it in WAL mode."""
    database = make_url(database_url).database
    assert database
    return [Path(f"{database}{suffix}") for suffix in ("", "-wal", "-shm")]


@contextlib.contextmanager
def read_only(database_url: str) -> Iterator[None]:
    """The database's files read-only for the bot while inside (`tests.support.unwritable`)."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(unwritable.read_only(files_of(database_url)))
        except unwritable.CannotMakeReadOnly as why:
            pytest.skip(str(why))
        yield


def errors_in(process: BotProcess) -> list[str]:
    return [line for line in process.output.splitlines() if " ERROR " in line]


async def delivered(fake: FakeTelegram, bot: WebhookBot) -> tuple[dict[str, Any], int]:
    """POST the update queued last to the bot as Telegram does; the update and the status."""
    update = fake.updates[-1]
    return update, await post_update(bot.url, update, SECRET)


async def webhook_board(fake: FakeTelegram, bot: WebhookBot) -> StoredMessage:
    """Alice's new one-phone game, its first move (the centre) played."""
    mark = fake.mark()
    fake.send_text(ALICE, "/start user user")
    assert (await delivered(fake, bot))[1] == 200
    await fake.wait_for("sendMessage", WAIT, since=mark)
    board = fake.last_bot_message(ALICE["id"])
    query_id = fake.tap(ALICE, board, cell_data(fake, board, 4))
    assert (await delivered(fake, bot))[1] == 200
    assert not (await fake.answer_to(query_id, WAIT)).get("text")
    await fake.wait_until(lambda: board_cells(fake, current(fake, board)) == "____X____", WAIT)
    return board


async def writes_settled(database_url: str) -> None:
    """Until what a tap leaves to be written a moment later is written: its update out of the
    inbox, its board marked shown. A write in flight as the files turn read-only is the SIGBUS
    the bot cannot avoid (its check comes before each transaction: see
    `bot.games.db.sqlite_file`); the test makes them read-only between transactions, as a
    host's mistake most likely would."""
    path = files_of(database_url)[0]

    def left() -> int:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            inbox = db.execute("SELECT count(*) FROM inbox_updates").fetchone()[0]
            behind = db.execute("SELECT count(*) FROM games WHERE shown_version < version")
            return int(inbox) + int(behind.fetchone()[0])

    async with asyncio.timeout(WAIT):
        while left():  # noqa: ASYNC110 - the bot's batched writes have no event to wait on
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # a round that read those just before may still write


async def test_with_its_file_deleted_a_polled_tap_is_not_saved_and_not_acknowledged(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    fake = telegram
    bot = BotProcess(tmp_path, bot_env(fake, database_url), "bot")
    try:
        since = fake.mark()
        await bot.start()
        await bot.wait_ready(fake, since)
        mark = fake.mark()
        fake.send_text(ALICE, "/start user user")
        await fake.wait_for("sendMessage", WAIT, since=mark)
        board = fake.last_bot_message(ALICE["id"])
        query_id = fake.tap(ALICE, board, cell_data(fake, board, 4))
        assert not (await fake.answer_to(query_id, WAIT)).get("text")
        await bots_done(fake, WAIT)

        for path in files_of(database_url):
            path.unlink(missing_ok=True)
        shown = current(fake, board).edit_count
        mark = fake.mark()
        query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 0))
        update_id = fake.updates[-1]["update_id"]
        answer = await fake.answer_to(query_id, WAIT)
        assert answer.get("text") == ru.POPUP_NOT_SAVED, answer
        # A second getUpdates would come at once if the tap were taken: none acknowledges it.
        await asyncio.sleep(1.5)
        assert update_id in [update["update_id"] for update in fake.pending_updates]
        offsets = [call.params.get("offset", 0) for call in fake.calls_of("getUpdates")[mark:]]
        assert all(offset <= update_id for offset in offsets), offsets
        assert current(fake, board).edit_count == shown  # the board was not touched
        assert board_cells(fake, current(fake, board)) == "____X____"
        assert bot.proc is not None and bot.proc.returncode is None, bot.tail()
        errors = errors_in(bot)
        assert len(errors) == 1 and "was deleted or replaced" in errors[0], errors
        assert not any(path.exists() for path in files_of(database_url))  # no empty new one
    finally:
        await bot.kill()


async def test_with_its_file_deleted_a_webhook_tap_is_a_5xx_and_told_it_was_not_saved(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    fake = telegram
    bot = WebhookBot(fake, tmp_path, database_url, SECRET)
    try:
        await bot.start()
        await bot.wait_listening()
        board = await webhook_board(fake, bot)

        for path in files_of(database_url):
            path.unlink(missing_ok=True)
        query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 0))
        tap, status = await delivered(fake, bot)
        assert status >= 500  # Telegram delivers it again later
        answer = await fake.answer_to(query_id, WAIT)
        assert answer.get("text") == ru.POPUP_NOT_SAVED, answer
        # Delivered again, still without a database: a 5xx again, and no second answer.
        mark = fake.mark()
        assert await post_update(bot.url, tap, SECRET) >= 500
        await asyncio.sleep(0.5)  # time for an answer that should not come
        assert not fake.calls_of("answerCallbackQuery")[mark:]
        assert board_cells(fake, current(fake, board)) == "____X____"
        status, health = await get_json(bot.health_url)
        assert (status, health["database"]) == (503, "database file missing")
        errors = errors_in(bot)
        assert len(errors) == 1 and "was deleted or replaced" in errors[0], errors
    finally:
        await bot.kill()


async def test_a_read_only_database_is_503_saves_no_tap_and_kills_nothing(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    fake = telegram
    bot = WebhookBot(fake, tmp_path, database_url, SECRET)
    try:
        await bot.start()
        await bot.wait_listening()
        board = await webhook_board(fake, bot)
        await writes_settled(database_url)

        with read_only(database_url):
            assert await get_json(bot.health_url) == (
                503,
                {"ok": False, "database": "database read-only"},
            )
            query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 0))
            tap, status = await delivered(fake, bot)
            assert status >= 500
            answer = await fake.answer_to(query_id, WAIT)
            assert answer.get("text") == ru.POPUP_NOT_SAVED, answer
            await asyncio.sleep(0.5)  # the chores' rounds meet the database too
            assert bot.proc is not None and bot.proc.returncode is None, bot.tail()
            assert board_cells(fake, current(fake, board)) == "____X____"
            errors = errors_in(bot)
            assert len(errors) == 1, errors
            assert "read-only" in errors[0] and "writable" in errors[0], errors

        # Writable again: the bot goes on by itself, and Telegram's next delivery plays.
        assert await get_json(bot.health_url) == (200, {"ok": True, "database": "ok"})
        assert await post_update(bot.url, tap, SECRET) == 200
        await fake.wait_until(lambda: board_cells(fake, current(fake, board)) == "O___X____", WAIT)
        assert len(errors_in(bot)) == 1, errors_in(bot)

        # Stopped while read-only: it leaves the database as it is and exits cleanly. (Made
        # read-only between transactions again: the tap's marks are written after its board.)
        await writes_settled(database_url)
        with read_only(database_url):
            assert (await get_json(bot.health_url))[0] == 503
            code = await bot.stop(signal.SIGTERM, WAIT)
        assert code == 0, bot.tail()
        errors = errors_in(bot)  # the second time read-only: said again
        assert len(errors) == 2 and "read-only" in errors[1], errors
        assert "left open" in bot.output, bot.tail()
    finally:
        await bot.kill()


async def test_a_bus_error_after_all_is_said_before_the_process_ends(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    # SQLite's shared memory cut short under the process (nothing the checks see): SQLite's
    # next write to it is SIGBUS. The process cannot go on, but it says why first.
    fake = telegram
    bot = WebhookBot(fake, tmp_path, database_url, SECRET)
    try:
        await bot.start()
        await bot.wait_listening()
        board = await webhook_board(fake, bot)
        os.truncate(files_of(database_url)[2], 0)
        fake.tap(ALICE, board, cell_data(fake, current(fake, board), 0))
        with contextlib.suppress(aiohttp.ClientError):  # (the answer may never come)
            await delivered(fake, bot)
        assert bot.proc is not None
        code = await asyncio.wait_for(bot.proc.wait(), WAIT)
        assert code == -signal.SIGBUS, bot.tail()
        [said] = [line for line in bot.output.splitlines() if " CRITICAL " in line]
        assert "SIGBUS" in said and "-shm" in said and "writable" in said, said
    finally:
        await bot.kill()
