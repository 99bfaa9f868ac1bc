"""Benchmark: another chat's tap behind one chat's burst, and what a flood costs in memory.

Run from the repository root:

    .venv/bin/python bench/flood.py [--runs 3] [--bursts 30,70,120,1000] [--cap 60]

Waits. Each run is a child process (`--one KIND BURST`) with the fake Bot API server of the
tests and the real bot (`tests/support/bot_runner.py`) in one event loop, under Telegram's
flood limits on both sides (the fake answers 429 past them; private chats one message a
second, bursts of 3). Bob and Mallory each start a game against `hard`; Mallory sends BURST
`/help`s at once, then Bob taps his board. The figure is the time from queuing Bob's tap to
the moment the bot's answerCallbackQuery for it arrives at the fake (Telegram takes it only
within 15 s), or "> cap" when none came within --cap seconds. KIND `before` is the bot with
PTB's `SimpleUpdateProcessor(64)` (what `bot/app.py` used until the lanes), `after` the bot as
it is (`UpdateLanes`). The child ends with `os._exit`: a bot with 1,000 paced replies queued
would take that long to stop. Medians of --runs runs.

Memory. 10,000 updates from one chat handed to each processor as PTB's polling does (parsed
from JSON 100 at a time, a task each), every handler waiting as a paced one does: tracemalloc's
peak over the flood, less what was allocated before it (the processor's and PTB's tasks'
share; the Bot API server is not in it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

THIS_FILE = Path(__file__).resolve()
sys.path.insert(0, str(THIS_FILE.parent.parent))

BOB_ID, MALLORY_ID = 2001, 2002
MEMORY_FLOOD = 10_000


async def one_run(kind: str, burst: int, cap: float) -> float | None:
    """Bob's wait, in seconds, behind Mallory's burst (None: none within `cap`)."""
    from telegram.ext import SimpleUpdateProcessor

    import bot.app
    from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS
    from tests.support.bot_runner import BotRunner
    from tests.support.chat import cell_data, send
    from tests.support.fake_telegram import FakeTelegram

    if kind == "before":
        bot.app.UpdateLanes = SimpleUpdateProcessor  # type: ignore[attr-defined, misc]
    bob, mallory = FakeTelegram.user(BOB_ID, "Bob"), FakeTelegram.user(MALLORY_ID, "Mallory")
    with tempfile.TemporaryDirectory() as workdir:
        async with FakeTelegram() as telegram:
            telegram.enforce_flood_limits(private=(1, 1.0, 3))
            url = f"sqlite+aiosqlite:///{Path(workdir) / 'bot.sqlite3'}"
            runner = BotRunner(telegram, url, flood_limits=TELEGRAM_FLOOD_LIMITS)
            await runner.start()
            await send(telegram, bob, "/start hard")
            await send(telegram, mallory, "/start hard")
            board = telegram.last_bot_message(BOB_ID)
            for _ in range(burst):
                telegram.send_text(mallory, "/help")
            tapped = time.perf_counter()
            query_id = telegram.tap(bob, board, cell_data(telegram, board, 4))

            def answered() -> bool:
                return any(
                    str(call.params.get("callback_query_id")) == query_id
                    for call in telegram.calls_of("answerCallbackQuery")
                )

            try:
                await telegram.wait_until(answered, timeout=cap, what="Bob's answer")
            except AssertionError:
                return None
            return time.perf_counter() - tapped


async def one_run_and_leave(kind: str, burst: int, cap: float) -> float | None:
    wait = await one_run(kind, burst, cap)
    print(json.dumps({"wait": wait}), flush=True)
    os._exit(0)  # the bot, still pacing the burst, is left behind: see the docstring


def run_child(kind: str, burst: int, cap: float) -> float | None:
    argv = [sys.executable, str(THIS_FILE), "--one", kind, str(burst), "--cap", str(cap)]
    env = {**os.environ, "LOG_LEVEL": "ERROR"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=cap + 120)
    lines = [line for line in done.stdout.splitlines() if line.startswith('{"wait"')]
    if not lines:
        raise RuntimeError(f"the run printed no figure:\n{done.stdout}\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])["wait"]


def fmt_wait(wait: float | None, cap: float) -> str:
    return f"> {cap:g} s" if wait is None else f"{wait:.2f} s"


def median_wait(waits: list[float | None], cap: float) -> float | None:
    """The median, a run with no answer counting as longer than any."""
    ordered = sorted(waits, key=lambda w: float("inf") if w is None else w)
    return ordered[len(ordered) // 2]


def flood_payloads(count: int) -> list[dict[str, Any]]:
    """`count` `/help`s from one private chat, as getUpdates returns them."""
    user = {"id": MALLORY_ID, "is_bot": False, "first_name": "Mallory"}
    chat = {"id": MALLORY_ID, "type": "private", "first_name": "Mallory"}
    return [
        {
            "update_id": 1 + i,
            "message": {
                "message_id": 1 + i,
                "date": 0,
                "chat": chat,
                "from": user,
                "text": "/help",
            },
        }
        for i in range(count)
    ]


async def flood_memory(processor: Any) -> int:
    """Peak bytes allocated while `MEMORY_FLOOD` updates from one chat reach `processor`."""
    from telegram import Bot, Update

    bot = Bot("123:memory")
    release = asyncio.Event()
    payloads = flood_payloads(MEMORY_FLOOD)

    async def handler() -> None:
        await release.wait()  # a handler waiting for its chat's pace

    await processor.initialize()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    tasks: set[asyncio.Task[None]] = set()  # as PTB keeps them: until each is done
    for start in range(0, MEMORY_FLOOD, 100):  # one getUpdates' worth at a time
        batch = json.loads(json.dumps(payloads[start : start + 100]))
        for data in batch:
            update = Update.de_json(data, bot)
            task = asyncio.create_task(processor.process_update(update, handler()))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        await asyncio.sleep(0)
    for _ in range(10):
        await asyncio.sleep(0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    release.set()
    await asyncio.gather(*tasks)
    await processor.shutdown()
    return peak - base


def memory_figures() -> None:
    from telegram.ext import SimpleUpdateProcessor

    from bot.app import CONCURRENT_UPDATES
    from bot.telegram.update_lanes import UpdateLanes

    for name, make in (
        ("before: SimpleUpdateProcessor(64)", lambda: SimpleUpdateProcessor(CONCURRENT_UPDATES)),
        ("after: UpdateLanes(64)", lambda: UpdateLanes(CONCURRENT_UPDATES)),
    ):
        peak = asyncio.run(flood_memory(make()))
        print(f"| {name} | {peak / 1024 / 1024:.1f} MiB ({peak / MEMORY_FLOOD:,.0f} B/update) |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bursts", default="30,70,120,1000")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds to wait for Bob")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "BURST"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        asyncio.run(one_run_and_leave(args.one[0], int(args.one[1]), args.cap))
    print(f"Bob's tap behind Mallory's burst of /help (median of {args.runs} runs):\n")
    print("| burst | before (SimpleUpdateProcessor) | after (UpdateLanes) | runs before / after |")
    print("| --- | --- | --- | --- |")
    for burst in (int(b) for b in args.bursts.split(",")):
        waits: dict[str, list[float | None]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for kind in waits:
                waits[kind].append(run_child(kind, burst, args.cap))
        cells = [fmt_wait(median_wait(waits[k], args.cap), args.cap) for k in waits]
        runs = " / ".join(", ".join(fmt_wait(w, args.cap) for w in waits[k]) for k in waits)
        print(f"| {burst} | {cells[0]} | {cells[1]} | {runs} |", flush=True)
    print(f"\nMemory of a flood of {MEMORY_FLOOD:,} updates from one chat (tracemalloc peak):\n")
    print("| processor | peak |")
    print("| --- | --- |")
    memory_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
