"""Backups of a SQLite database the bot writes to all along: players tap through games against
easy, one after another, while `tictactoe-bot backup` copies the file (as a process of its own,
as a host runs it) and while `restore` is refused; then the bot stops, the backup is restored,
and the bot plays on it.

A backup must be a database that passes `PRAGMA integrity_check`, and its games a prefix of the
source's: the first games, each at some moment of its own play (its moves a prefix of the
source's, as many as its board shows marks). SQLite commits one writer at a time, so games are
numbered in the order they were stored."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.games.db.backups.copies import copy_database
from bot.locales import en
from tests.support.bot_runner import BotRunner
from tests.support.chat import board_cells, button_texts, cell_data, current, words
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import clean_env, run_to_exit

# `tictactoe-bot backup` and `restore` run as processes, beside the bot in this one.
pytestmark = pytest.mark.process

PLAYERS = [FakeTelegram.user(880_000 + i, f"Player {i}") for i in range(8)]
WAIT = 30.0  # a guard against a hang, not a measurement


@pytest.fixture
def source(tmp_path: Path, migrated_sqlite: Path) -> Path:
    path = tmp_path / "bot.sqlite3"
    shutil.copyfile(migrated_sqlite, path)
    return path


def url_of(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


@contextlib.contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        yield db


def last_move(path: Path) -> int:
    with reading(path) as db:
        return int(db.execute("SELECT coalesce(max(id), 0) FROM moves").fetchone()[0])


def game_count(path: Path) -> int:
    with reading(path) as db:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])


async def next_message(tg: FakeTelegram, chat: int, posted: int) -> StoredMessage:
    """The bot's next message in the chat, once it has more than `posted`."""
    await tg.wait_until(lambda: len(tg.bot_messages(chat)) > posted, WAIT, "a message")
    return tg.last_bot_message(chat)


async def tap_and_wait(tg: FakeTelegram, user: dict, board: StoredMessage) -> None:
    """Tap the first free cell; once played, wait for easy's reply (or the ending)."""
    cells = board_cells(tg, current(tg, board))
    data = cell_data(tg, current(tg, board), cells.index("_"))
    if (await tg.answer_to(tg.tap(user, board, data), WAIT)).get("text"):
        return  # refused ("busy"): the next tap tries again

    def answered() -> bool:
        shown = current(tg, board)
        return bool(words(shown)) or board_cells(tg, shown).count("_") <= cells.count("_") - 2

    await tg.wait_until(answered, WAIT, "easy's reply")


async def keep_playing(tg: FakeTelegram, user: dict, stop: asyncio.Event) -> int:
    """Start a game against easy and tap it to its end, again and again until `stop`; the
    number of games finished."""
    chat, finished = user["id"], 0
    while not stop.is_set():
        posted = len(tg.bot_messages(chat))
        tg.send_text(user, "/start easy")
        board = await next_message(tg, chat, posted)
        if en.BUTTON_REPLACE in button_texts(tg, board):  # a game restored in its middle
            posted = len(tg.bot_messages(chat))
            await tg.answer_to(tg.tap_button(user, board, en.BUTTON_REPLACE), WAIT)
            board = await next_message(tg, chat, posted)
        while not words(current(tg, board)):
            if stop.is_set():
                return finished
            await tap_and_wait(tg, user, board)
        finished += 1
    return finished


@contextlib.asynccontextmanager
async def tap_burst(tg: FakeTelegram, database: Path, games: int) -> AsyncIterator[None]:
    """Every player taps through games while the body runs, begun once `games` are stored."""
    stop = asyncio.Event()
    players = [asyncio.create_task(keep_playing(tg, user, stop)) for user in PLAYERS]
    deadline = time.monotonic() + 60
    while game_count(database) < games:
        assert time.monotonic() < deadline, "the players did not get going"
        assert not any(player.done() for player in players), [p.result() for p in players]
        await asyncio.sleep(0.05)
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*players)


def assert_a_sound_prefix(backup: Path, source: Path) -> tuple[int, int]:
    """The backup passes integrity_check, and its games are a prefix of the source's (see the
    module's docstring); (games, moves) in the backup."""
    with reading(backup) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        games = db.execute("SELECT id, board FROM games ORDER BY id").fetchall()
        moves = db.execute("SELECT game_id, ply, cell, mark FROM moves ORDER BY id").fetchall()
    with reading(source) as db:
        source_ids = [i for (i,) in db.execute("SELECT id FROM games ORDER BY id")]
        source_moves = db.execute("SELECT game_id, ply, cell, mark FROM moves ORDER BY id")
        played: dict[int, list[tuple[int, int, str]]] = {}
        for game, *move in source_moves:
            played.setdefault(game, []).append(tuple(move))  # type: ignore[arg-type]
    assert [game for game, _ in games] == source_ids[: len(games)]
    copied: dict[int, list[tuple[int, int, str]]] = {}
    for game, *move in moves:
        copied.setdefault(game, []).append(tuple(move))  # type: ignore[arg-type]
    for game, board in games:
        mine = copied.get(game, [])
        assert mine == played.get(game, [])[: len(mine)], game
        assert len(mine) == sum(board.count(mark) for mark in "XO"), (game, board)
    return len(games), len(moves)


async def test_a_backup_taken_under_a_tap_burst_is_sound_and_a_prefix_of_the_games(
    telegram: FakeTelegram, tmp_path: Path, source: Path
) -> None:
    runner = BotRunner(telegram, url_of(source))
    await runner.start()
    backup = tmp_path / "backup.sqlite3"
    try:
        async with tap_burst(telegram, source, games=16):
            before = last_move(source)
            code, out, err = await run_to_exit(
                tmp_path, clean_env(DATABASE_URL=url_of(source)), "backup", str(backup)
            )
            after = last_move(source)
            await asyncio.sleep(0.3)  # and the players go on after it
    finally:
        await runner.stop()
    assert (code, err) == (0, ""), err
    [line] = out.splitlines()
    assert line.startswith(f"{backup}: ") and "integrity ok; copied in " in line, line
    assert after > before, "the bot stored no move while the backup ran"
    games, moves = assert_a_sound_prefix(backup, source)
    assert games >= 16
    assert moves < last_move(source)  # taken in the middle of the burst


async def test_a_copy_in_one_page_steps_holds_one_snapshot_while_the_bot_writes(
    telegram: FakeTelegram, tmp_path: Path, source: Path
) -> None:
    """The copy spans many of the bot's commits (a page a step, a pause between): none of
    them tears it, and it is the database as it was when the copy began."""
    runner = BotRunner(telegram, url_of(source))
    await runner.start()
    backup = tmp_path / "backup.sqlite3"
    try:
        async with tap_burst(telegram, source, games=16):
            before = last_move(source)
            copy = await asyncio.to_thread(
                copy_database, source, backup, pages_per_step=1, pause=0.003
            )
            after = last_move(source)
    finally:
        await runner.stop()
    assert copy.checked.pages > 50
    assert after > before + 5, "the bot stored too few moves while the copy ran"
    assert_a_sound_prefix(backup, source)
    with reading(backup) as db:
        copied = int(db.execute("SELECT coalesce(max(id), 0) FROM moves").fetchone()[0])
    assert before <= copied < after  # the snapshot of the copy's first page


async def test_restore_waits_for_the_bot_to_stop_and_the_bot_plays_on_the_restored_games(
    telegram: FakeTelegram, tmp_path: Path, source: Path
) -> None:
    runner = BotRunner(telegram, url_of(source))
    await runner.start()
    backup = tmp_path / "backup.sqlite3"
    env = clean_env(DATABASE_URL=url_of(source))
    try:
        async with tap_burst(telegram, source, games=8):
            await asyncio.to_thread(copy_database, source, backup)
            code, out, err = await run_to_exit(tmp_path, env, "restore", str(backup))
        await runner.quiesce()
    finally:
        await runner.stop()
    assert (code, out) == (1, ""), out
    [line] = err.splitlines()
    stop_first = "stop the bot (every instance on this file), then restore"
    assert line == f"restore: a process has {source} open: {stop_first}", line
    played = game_count(source)
    assert played > game_count(backup)

    code, out, err = await run_to_exit(tmp_path, env, "restore", str(backup))
    assert (code, err) == (0, ""), err
    assert f"{source}: restored from {backup}, " in out
    assert game_count(source) == game_count(backup)
    kept = Path(out.split("; the database it replaced is ")[1].strip())
    assert kept.name.startswith("bot.sqlite3.before-restore-")
    assert game_count(kept) == played

    # The bot runs on the restored games, and stores new ones. The games stored after the
    # backup are gone, so their numbers come again: the runners' count of each game's ending
    # (one per game, across runners on this fake) starts over.
    telegram.endings_heard.clear()  # type: ignore[attr-defined]
    runner = BotRunner(telegram, url_of(source))
    await runner.start()
    try:
        async with tap_burst(telegram, source, games=game_count(backup) + 4):
            pass
        await runner.quiesce()
    finally:
        await runner.stop()
    assert_a_sound_prefix(backup, source)
