"""Benchmark: many players at once, with Telegram's flood limits on both sides.

Run from the repository root:

    .venv/bin/python bench/load.py [--chats 300] [--groups 5] [--at-once 100] [--taps 900]
                                   [--database-url URL] [--seed 1]

It starts the fake Bot API server of the tests (tests/support/fake_telegram.py) on 127.0.0.1,
enforcing Telegram's flood limits on Telegram's clock (20 messages a minute per group, one a
second per private chat with bursts of 3), and the real bot as `python -m bot` on its defaults
(its own pacing on), on a SQLite file in a temporary directory unless --database-url is given.

--chats private chats and --groups groups each have one player, who plays `easy` by taps: a
tap on a random free cell of the board as the fake stores it, then, once the tap is answered
and its board shows the move (or the tap was refused), the next; a new `/start easy` when the
game is over. At most --at-once taps wait for their answer at once, across all chats (a
player whose turn comes waits for a place). The run ends after --taps taps.

It prints, per kind of chat:
- the answer's latency, from queuing the tap to the bot's answerCallbackQuery arriving (p50,
  p99), and the taps never answered within Telegram's 15 s;
- tap to board: from queuing the tap to the edit that shows its move arriving (p50, p99);
- updates stuck: taps answered later than 5 s, or never;
- the 429s the fake answered, and the bot's CPU per tap.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

THIS_FILE = Path(__file__).resolve()
ROOT = THIS_FILE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import bench.e2e as e2e  # noqa: E402
from bench.e2e import (  # noqa: E402
    TOKEN,
    BotProcess,
    child_env,
    kill_leftovers,
    percentile,
    pin_cpus,
    proc_cpu_seconds,
    settle,
)

#: Telegram takes a tap's answer for this long.
ANSWER_DEADLINE = 15.0
#: An update answered later than this was stuck.
STUCK_SECONDS = 5.0
USER_BASE = 600_000_000
GROUP_BASE = -1_000_000_000_000
READY_TIMEOUT = 120.0


@dataclass
class Tap:
    chat_id: int
    group: bool
    cell_data: str
    queued: float
    answered: float | None = None
    popup: str | None = None
    shown: float | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    answer_came: asyncio.Event = field(default_factory=asyncio.Event)

    def check_done(self) -> None:
        if self.answered is not None and (self.popup or self.shown is not None):
            self.done.set()


@dataclass
class Result:
    taps: list[Tap] = field(default_factory=list)
    games: int = 0
    lost_starts: int = 0
    wall: float = 0.0
    cpu: float | None = None
    bench_cpu: float = 0.0
    too_many: int = 0
    api_errors: Counter[str] = field(default_factory=Counter)
    log_warnings: list[str] = field(default_factory=list)
    log_errors: list[str] = field(default_factory=list)


class Watch:
    """Hooks in the fake: when each tap is answered, and when an edit shows its move."""

    def __init__(self, fake: Any, result: Result) -> None:
        from tests.support.fake_telegram import FakeApiError

        self._error = FakeApiError
        self.fake = fake
        self.result = result
        self.by_query: dict[str, Tap] = {}
        #: (chat, message) -> the tap waiting for its move to show there.
        self.pending: dict[tuple[int, int], Tap] = {}
        self.starts: dict[int, asyncio.Future[int]] = {}
        self.polled = asyncio.Event()
        for name in ("getUpdates", "answerCallbackQuery", "editMessageText", "sendMessage"):
            fake.register_method(name, self._wrap(name, fake._methods[name.lower()][1]))

    def _wrap(self, name: str, original: Any) -> Any:
        async def handler(params: dict[str, Any]) -> Any:
            arrived = time.perf_counter()
            if name == "getUpdates":
                self.polled.set()
            try:
                result = original(params)
                if asyncio.iscoroutine(result):
                    result = await result
            except self._error as error:
                if error.error_code == 429:
                    self.result.too_many += 1
                self.result.api_errors[f"{name}: {error.error_code} {error.description}"] += 1
                raise
            if name == "answerCallbackQuery":
                self._answered(params, arrived)
            elif name == "editMessageText":
                self._edited(params, arrived)
            elif name == "sendMessage":
                self._sent(result)
            return result

        return handler

    def _answered(self, params: dict[str, Any], arrived: float) -> None:
        tap = self.by_query.get(str(params.get("callback_query_id")))
        if tap is None or tap.answered is not None:
            return
        tap.answered = arrived
        tap.answer_came.set()
        if params.get("text"):
            tap.popup = str(params["text"])
        tap.check_done()

    def _edited(self, params: dict[str, Any], arrived: float) -> None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            key = (int(params["chat_id"]), int(params["message_id"]))
            tap = self.pending.get(key)
            if tap is not None and tap.cell_data not in _cell_datas(params.get("reply_markup")):
                # The tapped cell's button is gone: the board shows the move.
                tap.shown = arrived
                del self.pending[key]
                tap.check_done()

    def _sent(self, result: Any) -> None:
        chat_id = int(result["chat"]["id"])
        waiter = self.starts.pop(chat_id, None)
        if waiter is not None and not waiter.done() and result.get("reply_markup"):
            waiter.set_result(int(result["message_id"]))


def _cell_datas(markup: Any) -> set[str]:
    if isinstance(markup, str):
        import json

        markup = json.loads(markup)
    if not isinstance(markup, dict):
        return set()
    return {
        str(button.get("callback_data"))
        for row in markup.get("inline_keyboard", [])
        for button in row
    }


class Players:
    """The players: each plays its own chat's games, one tap at a time."""

    def __init__(self, fake: Any, watch: Watch, args: argparse.Namespace, result: Result):
        self.fake, self.watch, self.args, self.result = fake, watch, args, result
        self.places = asyncio.Semaphore(args.at_once)
        self.taps_left = args.taps
        self.empty = ""

    async def run(self) -> None:
        from bot.locales import en

        self.empty = en.EMPTY_SYMBOL
        chats = [self.play(i, group=False) for i in range(self.args.chats)]
        chats += [self.play(i, group=True) for i in range(self.args.groups)]
        started = time.perf_counter()
        tasks = [asyncio.ensure_future(chat) for chat in chats]
        try:
            await asyncio.wait(tasks, timeout=self.args.run_timeout)
        finally:
            self.result.wall = time.perf_counter() - started
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def start(self, user: dict[str, Any], chat: dict[str, Any]) -> int | None:
        waiter: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.watch.starts[chat["id"]] = waiter
        self.fake.send_text(user, "/start easy", chat=None if chat is user else chat)
        try:
            return await asyncio.wait_for(waiter, ANSWER_DEADLINE)
        except TimeoutError:
            self.watch.starts.pop(chat["id"], None)
            return None

    async def play(self, index: int, *, group: bool) -> None:
        user = self.fake.user(USER_BASE + index + (500_000 if group else 0), f"P{index}")
        chat = self.fake.group_chat(GROUP_BASE - index, f"Group {index}") if group else user
        chat_id = chat["id"]
        rng = random.Random(self.args.seed * 1_000_003 + index * 2 + group)
        # Players come in over the first second, as a crowd does.
        await asyncio.sleep(rng.random())
        message_id: int | None = None
        while self.taps_left > 0:
            if message_id is None:
                async with self.places:
                    message_id = await self.start(user, chat)
                if message_id is None:
                    self.result.lost_starts += 1
                    await asyncio.sleep(5.0)  # as a person would, before trying again
                    continue
                self.result.games += 1
            rows = self.fake.keyboard((chat_id, message_id))
            over = not any((d or "").startswith("r:") for row in rows for _, d in row)
            free = [d for row in rows[:3] for label, d in row if label == self.empty and d]
            if over or not free:
                message_id = None
                continue
            async with self.places:
                if self.taps_left <= 0:
                    return
                self.taps_left -= 1
                tap = Tap(chat_id, group, rng.choice(free), time.perf_counter())
                query = self.fake.tap(user, (chat_id, message_id), tap.cell_data)
                self.watch.by_query[query] = tap
                self.watch.pending[chat_id, message_id] = tap
                self.result.taps.append(tap)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(tap.answer_came.wait(), ANSWER_DEADLINE)
            # The place is free once answered; the player looks at the board before tapping on.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tap.done.wait(), self.args.board_timeout)
            self.watch.pending.pop((chat_id, message_id), None)
            if tap.answered is None:
                message_id = None  # as a person would: start again


def ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q) * 1000:,.0f}" if values else "-"


def report(result: Result, args: argparse.Namespace) -> None:
    print(
        f"\n{args.chats} private chats + {args.groups} groups, {args.at_once} taps at once, "
        f"{len(result.taps)} taps in {result.wall:.1f} s, {result.games} games "
        f"({result.lost_starts} /start with no board)"
    )
    print(
        "| chats | taps | unanswered | answer p50 / p99 ms | stuck > 5 s | "
        "tap→board p50 / p99 ms | boards not shown | refused |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, group in (("private", False), ("groups", True)):
        taps = [t for t in result.taps if t.group is group]
        if not taps:
            continue
        answers = [t.answered - t.queued for t in taps if t.answered is not None]
        unanswered = sum(t.answered is None for t in taps)
        stuck = unanswered + sum(a > STUCK_SECONDS for a in answers)
        moved = [t for t in taps if t.answered is not None and not t.popup]
        boards = [t.shown - t.queued for t in moved if t.shown is not None]
        print(
            f"| {label} | {len(taps)} | {unanswered} | {ms(answers, 50)} / {ms(answers, 99)} | "
            f"{stuck} | {ms(boards, 50)} / {ms(boards, 99)} | "
            f"{sum(t.shown is None for t in moved)} | {sum(bool(t.popup) for t in taps)} |"
        )
    cpu = f"{result.cpu / len(result.taps) * 1000:.2f} ms" if result.cpu and result.taps else "-"
    print(
        f"429s answered by the fake: {result.too_many}; the bot's CPU per tap: {cpu} "
        f"({result.cpu or 0:.1f} s in {result.wall:.1f} s); the bench's (fake and players): "
        f"{result.bench_cpu:.1f} s"
    )
    popups = Counter(t.popup for t in result.taps if t.popup)
    for text, count in popups.most_common(5):
        print(f"  pop-up x{count}: {text!r}")
    for text, count in result.api_errors.most_common(5):
        print(f"  refused x{count}: {text}")
    print(f"bot log: {len(result.log_warnings)} warnings, {len(result.log_errors)} errors")
    for line in (result.log_errors + result.log_warnings)[:8]:
        print("  " + line[:200])


async def bench(args: argparse.Namespace) -> Result:
    from tests.support.fake_telegram import FakeTelegram

    if not args.no_pin:
        print(pin_cpus())
    bot_cpus = e2e.BOT_CPUS
    result = Result()
    with tempfile.TemporaryDirectory(prefix="tictactoe-load-") as tmp:
        workdir = Path(tmp)
        url = args.database_url or f"sqlite+aiosqlite:///{workdir / 'load.sqlite3'}"
        async with FakeTelegram(token=TOKEN, time_scale=1.0) as fake:
            fake.enforce_flood_limits(private=(1, 1.0, 3))
            watch = Watch(fake, result)
            env = child_env(
                TELEGRAM_BOT_TOKEN=TOKEN,
                TELEGRAM_API_BASE_URL=fake.base_url,
                DATABASE_URL=url,
                LOG_LEVEL="WARNING",
            )
            process = BotProcess(
                "bot",
                [sys.executable, *profiled(args.profile), "-m", "bot"],
                workdir,
                env,
            )
            try:
                await process.start(bot_cpus)
                await asyncio.wait_for(watch.polled.wait(), READY_TIMEOUT)
                await settle(process.pid)
                cpu_before = proc_cpu_seconds(process.pid)
                bench_before = time.process_time()
                await Players(fake, watch, args, result).run()
                result.bench_cpu = time.process_time() - bench_before
                cpu_after = proc_cpu_seconds(process.pid)
                if cpu_before is not None and cpu_after is not None:
                    result.cpu = cpu_after - cpu_before
            finally:
                await process.stop()
            lines = process.output().splitlines()
            result.log_warnings = [line for line in lines if " WARNING " in line]
            result.log_errors = [line for line in lines if " ERROR " in line]
    return result


def profiled(path: str | None) -> list[str]:
    """The interpreter's arguments that run the bot under cProfile, writing to `path`."""
    return ["-m", "cProfile", "-o", str(Path(path).resolve())] if path else []


def print_profile(path: str, top: int = 25) -> None:
    import pstats

    stats = pstats.Stats(path)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chats", type=int, default=300, help="private chats (default 300)")
    parser.add_argument("--groups", type=int, default=5, help="groups (default 5)")
    parser.add_argument("--at-once", type=int, default=100, help="taps waiting at once")
    parser.add_argument("--taps", type=int, default=900, help="taps in all (default 900)")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--board-timeout", type=float, default=20.0, help="seconds a player waits for a board"
    )
    parser.add_argument("--run-timeout", type=float, default=600.0)
    parser.add_argument(
        "--profile", default=None, metavar="FILE", help="run the bot under cProfile into FILE"
    )
    parser.add_argument("--no-pin", action="store_true", help="do not pin bench and bot to CPUs")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        report(asyncio.run(bench(args)), args)
        if args.profile:
            print_profile(args.profile)
    finally:
        kill_leftovers()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
