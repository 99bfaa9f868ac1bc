"""Benchmark: boards left behind their games by crashes ("frozen boards").

Run from the repository root:

    .venv/bin/python bench/crash.py [--chats 20] [--pause 0.3] [--every 5] [--crashes 3]
                                    [--catch-up 1.0] [--settle 5] [--seed 1]

It starts the fake Bot API server of the tests (tests/support/fake_telegram.py, Telegram's
flood limits on, so the bot paces its edits: about one a second in a private chat) in this
process's event loop and the real bot as a subprocess (`python -m bot`, PYTHONPATH set to this
checkout, so that a copy of the repository at another commit runs its own code) on a SQLite
file in a temporary directory, with BOARD_CATCH_UP_SECONDS=--catch-up (code without the board
outbox ignores it).

--chats private chats each send `/start easy`, then every --pause seconds tap a random free
cell of the board the fake shows them (without waiting for the bot, as a person tapping fast
would); a finished board, or one unchanged for --give-up seconds, gets a new `/start easy`.
Every --every seconds the bot is killed with SIGKILL and a new process started at once,
--crashes times (--crashes 0: the control, --every seconds of play and no crash). After the
last restart the chats stop tapping; the bench waits 3 × --catch-up plus --settle seconds (and
until the fake is quiet), then reads the database (sqlite3) and compares, for every game with
a chat message, the board stored with the board the fake's message shows.

It prints: taps made, moves stored, crashes, frozen boards (a game whose message shows another
board than the one stored), never-posted boards (an active or open game with a chat but no
message), games whose message the fake does not have, and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.chat import (  # noqa: E402
    cell_data,
    free_cells,
    newest_board,
    shown_cells,
)
from tests.support.fake_telegram import FakeTelegram  # noqa: E402
from tests.support.processes import BotProcess, bot_env  # noqa: E402

USER_ID_BASE = 600_000_000
READY_TIMEOUT = 120.0  # process start to its first getUpdates
START_RETRY = 10.0  # seconds without a new board before `/start easy` is sent again
QUIET_TIMEOUT = 120.0  # the settle's wait for a quiet fake, at most
LIVE = ("active", "open")
#: httpx honours these: the bot must talk to 127.0.0.1 directly.
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@dataclass
class Counts:
    taps: int = 0
    starts: int = 0
    crashes: int = 0
    gave_up: int = 0
    ready_s: list[float] = field(default_factory=list)


@dataclass
class Census:
    games: int = 0
    moves: int = 0
    frozen: int = 0
    frozen_live: int = 0
    never_posted: int = 0
    missing: int = 0
    examples: list[str] = field(default_factory=list)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--chats", type=int, default=20, help="private chats tapping (default 20)")
    add("--pause", type=float, default=0.3, help="seconds between a chat's taps (0.3)")
    add("--every", type=float, default=5.0, help="seconds between crashes (5)")
    add("--crashes", type=int, default=3, help="kill -9 and restart this many times (3)")
    add("--catch-up", type=float, default=1.0, help="BOARD_CATCH_UP_SECONDS for the bot (1.0)")
    add("--settle", type=float, default=5.0, help="seconds for paced edits at the end (5)")
    add("--give-up", type=float, default=10.0, help="a board unchanged this long: /start (10)")
    add("--ai-pause", type=float, default=None, help="AI_PAUSE_SECONDS (the bot's default)")
    add("--seed", type=int, default=1, help="random seed (1)")
    return parser.parse_args(argv)


def env_for(fake: FakeTelegram, workdir: Path, args: argparse.Namespace) -> dict[str, str]:
    database_url = f"sqlite+aiosqlite:///{workdir / 'bot.sqlite3'}"
    extra = {"BOARD_CATCH_UP_SECONDS": str(args.catch_up)}
    if args.ai_pause is not None:
        extra["AI_PAUSE_SECONDS"] = str(args.ai_pause)
    env = bot_env(fake, database_url, **extra)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
    )
    for name in PROXY_VARS:
        env.pop(name, None)
    return env


# --- the chats ------------------------------------------------------------------------------


async def play_chat(
    fake: FakeTelegram, index: int, args: argparse.Namespace, counts: Counts, stop: asyncio.Event
) -> None:
    """Tap a free cell of the newest board every --pause s; `/start easy` when there is none
    (or the board stayed the same for --give-up s)."""
    user = fake.user(USER_ID_BASE + index, f"Player {index}")
    chat_id = user["id"]
    rng = random.Random(args.seed * 1_000_003 + index)
    await asyncio.sleep(rng.uniform(0, args.pause))
    start_sent: float | None = None
    seen: tuple[Any, ...] = ()
    seen_at = time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        board = newest_board(fake, chat_id)
        free = free_cells(fake, board) if board is not None else []
        if board is not None and free:
            look = (board.message_id, board.edit_count)
            if look != seen:
                seen, seen_at, start_sent = look, now, None
        stuck = bool(free) and now - seen_at > args.give_up
        if free and not stuck:
            cell = rng.choice(free)
            fake.tap(user, board, cell_data(fake, board, cell, prefix=""))  # type: ignore[arg-type]
            counts.taps += 1
        elif start_sent is None or now - start_sent > START_RETRY:
            counts.gave_up += stuck
            fake.send_text(user, "/start easy")
            counts.starts += 1
            start_sent, seen_at = now, now
        await asyncio.sleep(args.pause)


# --- the bot --------------------------------------------------------------------------------


async def start_bot(
    fake: FakeTelegram, workdir: Path, env: dict[str, str], name: str, counts: Counts
) -> BotProcess:
    process = BotProcess(workdir, env, name)
    since = fake.mark()
    began = time.monotonic()
    await process.start()
    await process.wait_ready(fake, since=since, timeout=READY_TIMEOUT)
    counts.ready_s.append(time.monotonic() - began)
    return process


async def crash_run(
    fake: FakeTelegram, workdir: Path, args: argparse.Namespace, counts: Counts
) -> BotProcess:
    """The chats play while the bot is killed and restarted; the last process, still running
    once the chats stopped."""
    env = env_for(fake, workdir, args)
    process = await start_bot(fake, workdir, env, "bot-0", counts)
    stop = asyncio.Event()
    chats = [asyncio.create_task(play_chat(fake, i, args, counts, stop)) for i in range(args.chats)]
    try:
        for crash in range(1, args.crashes + 1):
            await asyncio.sleep(args.every)
            await process.kill()
            counts.crashes += 1
            process = await start_bot(fake, workdir, env, f"bot-{crash}", counts)
        if not args.crashes:  # the control: the same play without a crash
            await asyncio.sleep(args.every)
    finally:
        stop.set()
        await asyncio.gather(*chats)
    return process


async def settle(fake: FakeTelegram, args: argparse.Namespace) -> float:
    """3 × --catch-up plus --settle seconds, then until the fake is quiet; the seconds taken."""
    began = time.monotonic()
    await asyncio.sleep(3 * args.catch_up + args.settle)
    with contextlib.suppress(AssertionError):
        await fake.wait_idle(quiet=1.0, timeout=QUIET_TIMEOUT)
    return time.monotonic() - began


# --- the count ------------------------------------------------------------------------------


def census(fake: FakeTelegram, database: Path) -> Census:
    """Every game with a chat: its stored board against the board its message shows."""
    found = Census()
    with contextlib.closing(sqlite3.connect(database)) as db:
        found.moves = db.execute("SELECT count(*) FROM moves").fetchone()[0]
        rows = db.execute(
            "SELECT id, chat_id, message_id, board, status FROM games"
            " WHERE chat_id IS NOT NULL ORDER BY id"
        ).fetchall()
    for game_id, chat_id, message_id, board, status in rows:
        found.games += 1
        if message_id is None:
            found.never_posted += status in LIVE
            continue
        message = fake.messages.get((chat_id, message_id))
        if message is None:
            found.missing += 1
            continue
        shown = shown_cells(fake, message)
        if shown != board:
            found.frozen += 1
            found.frozen_live += status in LIVE
            if len(found.examples) < 5:
                found.examples.append(f"game {game_id} ({status}): stored {board}, shown {shown}")
    return found


def commit() -> str:
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        return subprocess.run(
            ["git", "log", "-1", "--format=%h %s"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()[:90]
    return "?"


def report(args: argparse.Namespace, counts: Counts, found: Census, settled: float) -> None:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"code:             {ROOT} at {commit()}")
    print(
        f"setup:            {args.chats} chats, pause {args.pause} s, a crash every {args.every}"
        f" s, catch-up {args.catch_up} s, seed {args.seed}"
    )
    print(f"taps made:        {counts.taps} ({counts.starts} /start, {counts.gave_up} gave up)")
    print(f"moves stored:     {found.moves} in {found.games} games")
    print(f"crashes:          {counts.crashes}")
    ready = ", ".join(f"{s:.1f}" for s in counts.ready_s)
    print(f"ready after:      {ready} s; settled {settled:.1f} s after the last restart")
    print(f"frozen boards:    {found.frozen} ({found.frozen_live} of them active or open)")
    print(f"never posted:     {found.never_posted}")
    print(f"message missing:  {found.missing}")
    for example in found.examples:
        print(f"  {example}")
    print(f"load average:     {load}")


async def run(args: argparse.Namespace) -> None:
    counts = Counts()
    with tempfile.TemporaryDirectory(prefix="bench-crash-") as tmp:
        workdir = Path(tmp)
        async with FakeTelegram() as fake:
            process = await crash_run(fake, workdir, args, counts)
            try:
                settled = await settle(fake, args)
                found = census(fake, workdir / "bot.sqlite3")
            finally:
                await process.kill()
        report(args, counts, found, settled)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    main()
