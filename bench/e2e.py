"""Benchmark: end-to-end throughput of the real bot, against the ceiling.

Run from the repository root:

    .venv/bin/python bench/e2e.py [--chats 20] [--in-flight 10] [--games 5] [--runs 3]
                                  [--database-url URL] [--fail-429 0.1] [--seed 1] [--profile]

It starts the fake Bot API server of the tests (tests/support/fake_telegram.py) on 127.0.0.1 in this
process's event loop and the real bot as a subprocess (`python -m bot`, in a temporary
directory, LOG_LEVEL=WARNING, a SQLite file there unless --database-url is given). Before the
bot starts, the database is migrated and filled with --seed-games finished games (default
10,000), so the start-up figure is the one of a bot with a history.

The bot runs with Telegram's flood limits lifted (`python bench/e2e.py --unpaced-bot` is
`python -m bot` with `Settings.flood_limits` unlimited): the fake enforces none, and at one
message a second per private chat (30 in all) the pacing, not the bot, would set the figures.
Its flood gate still sees every call, so its cost is measured.

Start-up is timed from the process's start to its first getUpdates (the bot's own modules
compiled beforehand, as pip leaves an installed package). The taps begin once the bot is idle
after that (what it puts off until it takes updates, such as publishing its profile, is done),
and the bot's CPU is counted from then on.

--chats private chats then each play --games games against `hard` by taps: `/start hard`, then
a tap on a random free cell, then (once the board message was edited) the next tap on the board
the fake now stores, until the keyboard loses its Resign row (the game is over). At most
--in-flight updates (taps and `/start`s) are in flight at once across all chats; a chat has at
most one, since its next tap depends on the board. For every tap it measures, with
time.perf_counter in this process, the time from queuing the callback query update to the
moment the bot's answerCallbackQuery and then its editMessageText for that board arrive at the
fake (hooks around the fake's method handlers: the moment the call comes in, not a poll).

The ceiling is measured in the same run: a bare python-telegram-bot bot as PTB ships it (long
polling; the bot's number of concurrent updates; PTB's own httpx transport, with the bot's
retry policy so that it survives --fail-429 too) that makes the same calls per tap (answer the
query, edit the message with a 3x3 keyboard plus a Resign row: the tapped cell becomes ❌ and
the first free one ⭕) without a database or an AI. It is driven
with the same chats, in-flight limit and the same number of taps per game as the real bot took.
It runs as `python bench/e2e.py --ceiling-bot`.

--fail-429 F answers that fraction of answerCallbackQuery, editMessageText and sendMessage
calls with 429 "Too Many Requests: retry after 1" (parameters.retry_after = 1), for both bots
alike: whether the n-th call of a method to a chat fails is drawn from the seed, the method,
the chat and n, so both bots meet the same 429s however their calls interleave;
the bot retries them, so lost taps (no edit within --tap-timeout seconds) should stay 0.

--runs N repeats the pair N times (ours, then the ceiling on the same schedule; every other
pair the ceiling first, on the schedule ours played last, so that a machine that drifts
favours neither; with --fail-429 always ours first, so that both meet the same 429s) and
ends with the medians: throughput, p99 tap→edit and CPU per tap, and their ratios (the
median of the per-run ratios).

--metrics runs ours with METRICS_PORT set (a free port of 127.0.0.1), so that it counts every
update, Bot API call and transaction as it would in production; the ceiling has no metrics.
Compare a run with it and one without for what the metrics cost per tap.

--profile runs both bots under cProfile from their first update on (start-up is not a tap's
cost) and prints each one's own time per tap by category side by side (Telegram I/O: HTTP
client, update parsing and objects; PTB dispatch; database; use-case; rendering; handlers;
event loop), then ours's top functions. Profiling inflates call-dense code the most (httpx's
stack more than aiohttp's), so compare categories within one bot, not the two totals.

With two CPUs or more the bench pins itself to the first and the bots to the second
(--no-pin: not), and the report splits the bot's CPU between the event loop's thread and the
others (aiosqlite runs SQLite on a thread of its own).

The machine matters: this process (fake + driver) and the bot each want a core.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import gc
import inspect
import io
import logging
import math
import os
import platform
import pstats
import random
import signal
import statistics
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

#: Bot settings inherited from this shell that must not reach the bot processes.
SETTINGS_VARS = ("DATABASE_URL", "LOG_LEVEL", "AI_PAUSE_SECONDS", "TURN_TIMEOUT_SECONDS")
SETTINGS_PREFIXES = ("TELEGRAM_", "WEBHOOK_")
#: httpx honours these: the bots must talk to 127.0.0.1 directly.
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
TOKEN = "7412589630:AAF-benchToken_e2e-xyz"
USER_ID_BASE = 500_000_000  # bench users; seeded players are 1..SEED_PLAYERS
SEED_PLAYERS = 1000
SEED_BATCH = 2500  # games per seeding transaction
READY_TIMEOUT = 120.0  # process start to the first getUpdates
STOP_TIMEOUT = 20.0  # SIGINT to exit (cProfile writes its file on the way out)
MAX_TAPS_PER_GAME = 12  # a 3x3 game needs at most 5 taps; refusals get a few more
FAILED_METHODS = ("answerCallbackQuery", "editMessageText", "sendMessage")

# The ceiling bot's board: the same symbols as the bot's English texts.
CEIL_X, CEIL_O, CEIL_EMPTY = "❌", "⭕", "·"
CEIL_RESIGN = "🏳 Resign"


# --- numbers --------------------------------------------------------------------------------


#: With two CPUs or more, the bench (fake + driver) keeps to the first and each bot to the
#: second, so that neither steals the other's core (set by `pin_cpus`; None: not pinned).
BOT_CPUS: set[int] | None = None


def pin_cpus() -> str:
    """Pin this process to CPU 0 and the bots to CPU 1, if there are two; says what it did."""
    global BOT_CPUS
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return "not pinned (one CPU)"
    os.sched_setaffinity(0, {cpus[0]})
    BOT_CPUS = {cpus[1]}
    return f"bench on CPU {cpus[0]}, bots on CPU {cpus[1]}"


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), linear between the closest ranks; nan without values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def mean_or_none(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def stat_cpu_seconds(stat: Path) -> float | None:
    """User + system CPU seconds from a /proc …/stat file (a process's or a thread's)."""
    try:
        text = stat.read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # fields from #3 (state) on
    ticks = int(fields[11]) + int(fields[12])  # #14 utime, #15 stime
    return ticks / os.sysconf("SC_CLK_TCK")


def proc_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process, all its threads."""
    return stat_cpu_seconds(Path(f"/proc/{pid}/stat"))


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU seconds per thread of a process, summed by thread name (/proc/<pid>/task)."""
    totals: dict[str, float] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return totals
    for task in tasks:
        try:
            name = (task / "comm").read_text().strip()
        except OSError:
            continue
        seconds = stat_cpu_seconds(task / "stat")
        if seconds is None:
            continue
        key = "main" if task.name == str(pid) else name
        totals[key] = totals.get(key, 0.0) + seconds
    return totals


def proc_status_mb(pid: int, key: str) -> float | None:
    """A memory line of /proc/<pid>/status (VmRSS, VmHWM …) in MiB."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return None


# --- the ceiling bot (a subprocess: `python bench/e2e.py --ceiling-bot`) ------------------------


def run_ceiling_bot(concurrent_updates: int, backoff: float, profile_to: str | None = None) -> int:
    """PTB's Application as the bot builds it, answering `/start` with a board and every tap
    with answerCallbackQuery + editMessageText. No database, no AI."""
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
    from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler

    from bot.telegram.request import RetryingHTTPXRequest

    logging.basicConfig(
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        level=os.environ.get("LOG_LEVEL", "WARNING"),
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    labels = {"X": CEIL_X, "O": CEIL_O, "_": CEIL_EMPTY}
    marks = {label: mark for mark, label in labels.items()}

    def keyboard(game_id: int, cells: list[str]) -> InlineKeyboardMarkup:
        ply = sum(1 for c in cells if c != "_")
        rows = [
            [
                InlineKeyboardButton(labels[cells[i]], callback_data=f"m:{game_id}:{ply}:{i}")
                for i in range(row * 3, row * 3 + 3)
            ]
            for row in range(3)
        ]
        rows.append([InlineKeyboardButton(CEIL_RESIGN, callback_data=f"r:{game_id}:{ply}")])
        return InlineKeyboardMarkup(rows)

    def text(name: str, cells: list[str]) -> str:
        turn = "Your move ❌: tap a free cell." if "_" in cells else "Draw"
        return f"❌ {name} vs ⭕ Hard AI\n\n{turn}"

    async def start(update: Update, context: Any) -> None:
        message, user = update.effective_message, update.effective_user
        if message is None or user is None:
            return
        cells = ["_"] * 9
        await context.bot.send_message(
            message.chat_id, text(user.first_name, cells), reply_markup=keyboard(0, cells)
        )

    async def tap(update: Update, _context: Any) -> None:
        query = update.callback_query
        if query is None or query.message is None or not query.data:
            return
        parts = query.data.split(":")
        markup = query.message.reply_markup
        if parts[0] != "m" or len(parts) != 4 or markup is None:
            await query.answer("Unknown button")
            return
        cells = [marks.get(b.text, "_") for row in markup.inline_keyboard[:3] for b in row]
        cell = int(parts[3])
        if not 0 <= cell < 9 or cells[cell] != "_":
            await query.answer("This cell is occupied")
            return
        cells[cell] = "X"
        if "_" in cells:
            cells[cells.index("_")] = "O"
        await query.answer()
        await query.edit_message_text(
            text(query.from_user.first_name, cells),
            reply_markup=keyboard(query.message.message_id, cells),
        )

    builder = (
        ApplicationBuilder()
        .token(os.environ["TELEGRAM_BOT_TOKEN"])
        .concurrent_updates(concurrent_updates)
        .request(RetryingHTTPXRequest(connection_pool_size=256, backoff_base=backoff))
        .get_updates_request(
            RetryingHTTPXRequest(connection_pool_size=1, max_attempts=3, backoff_base=backoff)
        )
    )
    base_url = os.environ.get("TELEGRAM_API_BASE_URL")
    if base_url:
        builder = builder.base_url(base_url)
    application = builder.build()
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CallbackQueryHandler(tap))
    profiler = FirstUpdateProfiler(profile_to)
    profiler.attach(application)
    try:
        application.run_polling(allowed_updates=Update.ALL_TYPES)
    finally:
        profiler.dump()
    return 0


class FirstUpdateProfiler:
    """cProfile from a bot's first update on (start-up is not a tap's cost), written to
    `path` when the bot stops."""

    def __init__(self, path: str | None) -> None:
        import cProfile

        self.path = path
        self.profiler = cProfile.Profile() if path else None
        self.started = False

    def attach(self, application: Any) -> Any:
        from telegram.ext import TypeHandler

        async def start(_update: object, _context: object) -> None:
            if self.profiler is not None and not self.started:
                self.started = True
                self.profiler.enable()

        if self.profiler is not None:
            application.add_handler(TypeHandler(object, start), group=-1000)
        return application

    def dump(self) -> None:
        if self.profiler is not None and self.path:
            self.profiler.disable()
            self.profiler.dump_stats(self.path)


def run_unpaced_bot(profile_to: str | None = None) -> int:
    """`python -m bot` as it runs in production, but with no flood limits to pace it."""
    import gc

    gc.disable()  # as bot.cli does for start-up
    import bot.run
    from bot.app import build_application
    from bot.config import Settings
    from bot.telegram.flood_gate import FloodLimits

    profiler = FirstUpdateProfiler(profile_to)

    def build_unpaced(settings: Settings) -> Any:
        unpaced = settings.model_copy(update={"flood_limits": FloodLimits.unlimited()})
        return profiler.attach(build_application(unpaced))

    bot.run.build_application = build_unpaced  # type: ignore[attr-defined]
    try:
        return bot.run.run_bot()
    finally:
        profiler.dump()


# --- the bot processes ----------------------------------------------------------------------


_STARTED: list[asyncio.subprocess.Process] = []


def child_env(**values: str) -> dict[str, str]:
    """This environment without bot settings or proxies, plus ``values``."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(SETTINGS_PREFIXES)
        and name not in SETTINGS_VARS
        and name not in PROXY_VARS
    }
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
    )
    env.update(values)
    return env


class BotProcess:
    """A bot subprocess with its output in files; always stopped by `stop`."""

    def __init__(self, name: str, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.name = name
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.stdout_path = cwd / f"{name}.stdout"
        self.stderr_path = cwd / f"{name}.stderr"
        self.proc: asyncio.subprocess.Process | None = None
        self.started_at = 0.0

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self, cpus: set[int] | None = None) -> None:
        def pin() -> None:  # in the child, before it execs: its threads inherit the set
            if cpus:
                os.sched_setaffinity(0, cpus)

        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.started_at = time.perf_counter()
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # a Ctrl+C of the bench is ours to pass on
                preexec_fn=pin if cpus else None,
            )
        _STARTED.append(self.proc)

    def output(self) -> str:
        parts = []
        for path in (self.stdout_path, self.stderr_path):
            with contextlib.suppress(OSError):
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
        return "".join(parts)

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.output().splitlines()[-lines:])

    async def stop(self) -> int | None:
        """SIGINT (a clean stop: cProfile writes its file), SIGKILL if it lingers."""
        proc = self.proc
        if proc is None:
            return None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), STOP_TIMEOUT)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        return proc.returncode


def kill_leftovers() -> None:
    """Last resort (after the event loop is gone): SIGKILL every bot process still running."""
    for proc in _STARTED:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, signal.SIGKILL)


# --- hooks in the fake ----------------------------------------------------------------------


@dataclass
class Tap:
    chat_id: int
    message_id: int
    queued: float
    done: asyncio.Future
    answered: float | None = None
    edited: float | None = None
    popup: str | None = None
    reposted_as: int | None = None  # a fresh board message instead of an edit
    first: bool = False  # the first tap on a new board

    def resolve(self) -> None:
        if not self.done.done():
            self.done.set_result(None)


class Hooks:
    """Wrappers around the fake's method handlers: they note when a call arrives
    (time.perf_counter), inject 429s, and wake the driver."""

    def __init__(self, fake: Any, fail_fraction: float, seed: int) -> None:
        from tests.support.fake_telegram import FakeApiError

        self._error = FakeApiError
        self.fake = fake
        self.fail_fraction = fail_fraction
        self.seed = seed
        #: Calls of each method to each chat so far: the n-th call of a method to a chat gets
        #: a 429 or not alike for both bots, however their calls interleave.
        self.calls_to: Counter[tuple[str, int | None]] = Counter()
        self.first_poll: float | None = None
        self.polled = asyncio.Event()
        self.taps_by_query: dict[str, Tap] = {}
        self.taps_by_chat: dict[int, Tap] = {}
        self.starts: dict[int, asyncio.Future] = {}
        self.injected: Counter[str] = Counter()
        self.error_texts: Counter[str] = Counter()
        self.stray: Counter[str] = Counter()
        # The fake keeps its handlers in `_methods`; wrap the originals.
        for name in ("getUpdates", *FAILED_METHODS):
            original = fake._methods[name.lower()][1]
            fake.register_method(name, self._wrap(name, original))

    def _wrap(self, name: str, original: Any) -> Any:
        on_arrival = {
            "getUpdates": self._on_poll,
            "answerCallbackQuery": self._on_answer,
            "editMessageText": self._on_edit,
            "sendMessage": self._on_send,
        }[name]

        async def handler(params: dict[str, Any]) -> Any:
            arrived = time.perf_counter()
            if name in FAILED_METHODS and self.fail_fraction > 0 and self._fails(name, params):
                self.injected[name] += 1
                raise self._error(
                    429, "Too Many Requests: retry after 1", parameters={"retry_after": 1}
                )
            if name == "getUpdates":
                on_arrival(params, None, arrived)
            try:
                result = original(params)
                if inspect.isawaitable(result):
                    result = await result
            except self._error as error:
                self.error_texts[f"{name}: {error.error_code} {error.description}"] += 1
                raise
            if name != "getUpdates":
                on_arrival(params, result, arrived)  # after the fake stored the new state
            return result

        return handler

    def _fails(self, name: str, params: dict[str, Any]) -> bool:
        """Whether this call gets a 429: drawn from the seed, the method, the chat and how
        many calls of that method the chat had before (retries count as calls)."""
        chat: int | None
        if name == "answerCallbackQuery":
            tap = self.taps_by_query.get(str(params.get("callback_query_id")))
            chat = tap.chat_id if tap is not None else None
        else:
            try:
                chat = int(params["chat_id"])
            except (KeyError, TypeError, ValueError):
                chat = None
        self.calls_to[name, chat] += 1
        draw = random.Random(f"{self.seed}:{name}:{chat}:{self.calls_to[name, chat]}")
        return draw.random() < self.fail_fraction

    def _on_poll(self, _params: dict[str, Any], _result: Any, arrived: float) -> None:
        if self.first_poll is None:
            self.first_poll = arrived
            self.polled.set()

    def _on_answer(self, params: dict[str, Any], _result: Any, arrived: float) -> None:
        tap = self.taps_by_query.get(str(params.get("callback_query_id")))
        if tap is None or tap.answered is not None:
            self.stray["answerCallbackQuery"] += 1
            return
        tap.answered = arrived
        if params.get("text"):
            tap.popup = str(params["text"])
            tap.resolve()  # a refusal: no edit comes
        elif tap.edited is not None:
            tap.resolve()

    def _on_edit(self, params: dict[str, Any], _result: Any, arrived: float) -> None:
        try:
            key = (int(params["chat_id"]), int(params["message_id"]))
        except (KeyError, TypeError, ValueError):
            self.stray["editMessageText"] += 1
            return
        tap = self.taps_by_chat.get(key[0])
        if tap is None or tap.message_id != key[1] or tap.edited is not None:
            self.stray["editMessageText"] += 1
            return
        tap.edited = arrived
        if tap.answered is not None:
            tap.resolve()

    def _on_send(self, _params: dict[str, Any], result: Any, arrived: float) -> None:
        chat_id, message_id = int(result["chat"]["id"]), int(result["message_id"])
        waiter = self.starts.pop(chat_id, None)
        if waiter is not None:
            if not waiter.done():
                waiter.set_result((message_id, arrived))
            return
        tap = self.taps_by_chat.get(chat_id)
        if tap is not None and tap.edited is None and result.get("reply_markup"):
            # The bot did not know the board's message yet: it posted a fresh board.
            tap.edited, tap.reposted_as = arrived, message_id
            if tap.answered is not None:
                tap.resolve()
            return
        self.stray["sendMessage"] += 1


# --- the driver -----------------------------------------------------------------------------


@dataclass
class RunResult:
    label: str
    taps: list[Tap] = field(default_factory=list)
    lost: int = 0
    refused: int = 0
    unanswered: int = 0
    reposted: int = 0
    lost_starts: int = 0
    #: /start to its board's sendMessage, ms, for each board that came.
    start_ms: list[float] = field(default_factory=list)
    games_started: int = 0
    games_completed: int = 0
    wall: float = 0.0
    timed_out: bool = False
    #: Taps that got their edit, per chat, per game: the ceiling replays these counts.
    schedule: list[list[int]] = field(default_factory=list)
    startup: float | None = None
    #: From the first getUpdates until the bot was idle, before the first update was sent.
    settle: float | None = None
    rss_after_startup: float | None = None
    cpu_run: float | None = None
    cpu_total: float | None = None
    peak_rss: float | None = None
    bench_cpu: float = 0.0
    #: Bot CPU seconds during the run per thread ("main": the event loop's).
    thread_cpu: dict[str, float] = field(default_factory=dict)
    exit_code: int | None = None
    log_warnings: int = 0
    log_errors: int = 0
    error_lines: list[str] = field(default_factory=list)
    injected: Counter[str] = field(default_factory=Counter)
    api_errors: Counter[str] = field(default_factory=Counter)
    stray: Counter[str] = field(default_factory=Counter)

    @property
    def shown(self) -> list[Tap]:
        return [t for t in self.taps if t.edited is not None]

    def answer_ms(self) -> list[float]:
        """Over the taps shown, as tap→edit (a refusal's answer is not a move)."""
        return [(t.answered - t.queued) * 1000 for t in self.shown if t.answered is not None]

    def popups(self) -> Counter[str]:
        return Counter(t.popup for t in self.taps if t.popup is not None)

    def edit_ms(self, first: bool | None = None) -> list[float]:
        return [
            (t.edited - t.queued) * 1000
            for t in self.shown
            if t.edited is not None and (first is None or t.first == first)
        ]


class Driver:
    """Plays the games: `/start hard`, then taps on free cells, K updates in flight at most."""

    def __init__(
        self,
        fake: Any,
        hooks: Hooks,
        args: argparse.Namespace,
        result: RunResult,
        empty_symbol: str,
        replay: list[list[int]] | None,
    ) -> None:
        self.fake = fake
        self.hooks = hooks
        self.args = args
        self.result = result
        self.empty = empty_symbol
        self.replay = replay
        self.slots = asyncio.Semaphore(args.in_flight)

    async def run(self) -> None:
        self.result.schedule = [[] for _ in range(self.args.chats)]
        tasks = [asyncio.create_task(self.play_chat(i)) for i in range(self.args.chats)]
        started = time.perf_counter()
        try:
            _done, pending = await asyncio.wait(tasks, timeout=self.args.run_timeout)
            self.result.wall = time.perf_counter() - started
            if pending:
                self.result.timed_out = True
        finally:
            for task in tasks:
                task.cancel()
            outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, Exception):
                raise outcome

    async def start_game(self, user: dict[str, Any]) -> int | None:
        """`/start hard`; the id of the board message, or None if none came in time."""
        waiter = asyncio.get_running_loop().create_future()
        self.hooks.starts[user["id"]] = waiter
        async with self.slots:
            sent = time.perf_counter()
            self.fake.send_text(user, "/start hard")
            try:
                async with asyncio.timeout(self.args.tap_timeout):
                    message_id, arrived = await waiter
            except TimeoutError:
                self.hooks.starts.pop(user["id"], None)
                return None
        self.result.start_ms.append((arrived - sent) * 1000)
        return message_id

    async def tap(self, user: dict[str, Any], message_id: int, data: str) -> Tap:
        chat_id = user["id"]
        loop = asyncio.get_running_loop()
        async with self.slots:
            tap = Tap(chat_id, message_id, time.perf_counter(), loop.create_future())
            query_id = self.fake.tap(user, (chat_id, message_id), data)
            self.hooks.taps_by_query[query_id] = tap
            self.hooks.taps_by_chat[chat_id] = tap
            try:
                async with asyncio.timeout(
                    tap.queued + self.args.tap_timeout - time.perf_counter()
                ):
                    await tap.done
            except TimeoutError:
                pass
            finally:
                self.hooks.taps_by_query.pop(query_id, None)
                if self.hooks.taps_by_chat.get(chat_id) is tap:
                    del self.hooks.taps_by_chat[chat_id]
        self.result.taps.append(tap)
        return tap

    def newest_board(self, chat_id: int, current: int) -> int:
        """The newest bot message in the chat with board cells (else `current`)."""
        for message in reversed(self.fake.bot_messages(chat_id)):
            rows = self.fake.keyboard(message)
            if rows and any((d or "").startswith("m:") for _, d in rows[0]):
                return message.message_id
        return current

    async def play_chat(self, index: int) -> None:
        user = self.fake.user(USER_ID_BASE + index, f"Player {index}")
        chat_id = user["id"]
        rng = random.Random(self.args.seed * 1_000_003 + index)
        plan = self.replay[index] if self.replay is not None else None
        for game in range(self.args.games if plan is None else len(plan)):
            message_id = await self.start_game(user)
            if message_id is None:
                self.result.lost_starts += 1
                self.result.schedule[index].append(0)
                continue
            self.result.games_started += 1
            shown = 0
            completed = False
            for _ in range(MAX_TAPS_PER_GAME):
                rows = self.fake.keyboard((chat_id, message_id))
                over = not any((d or "").startswith("r:") for row in rows for _, d in row)
                if (plan is not None and shown >= plan[game]) or (plan is None and over):
                    completed = True
                    break
                free = [d for row in rows[:3] for label, d in row if label == self.empty and d]
                if not free:
                    break
                first = shown == 0
                if first and self.args.first_tap_delay > 0:
                    await asyncio.sleep(self.args.first_tap_delay)
                tap = await self.tap(user, message_id, rng.choice(free))
                tap.first = first
                if tap.edited is None:
                    if tap.popup is not None:
                        # Refused (e.g. "the board just changed"): look at the newest board
                        # in the chat, as a person would, and tap again.
                        self.result.refused += 1
                        message_id = self.newest_board(chat_id, message_id)
                        continue
                    self.result.lost += 1
                    break  # the board is unknown now: next game
                if tap.answered is None:
                    self.result.unanswered += 1
                if tap.reposted_as is not None:
                    self.result.reposted += 1
                    message_id = tap.reposted_as
                shown += 1
            else:
                rows = self.fake.keyboard((chat_id, message_id))
                completed = not any((d or "").startswith("r:") for row in rows for _, d in row)
            self.result.schedule[index].append(shown)
            if completed:
                self.result.games_completed += 1


# --- one bot, one fake, one run ---------------------------------------------------------------


async def wait_ready(process: BotProcess, hooks: Hooks) -> None:
    """Until the first getUpdates; fails fast if the process exits."""
    assert process.proc is not None
    polled = asyncio.ensure_future(hooks.polled.wait())
    exited = asyncio.ensure_future(process.proc.wait())
    try:
        await asyncio.wait({polled, exited}, timeout=READY_TIMEOUT, return_when="FIRST_COMPLETED")
    finally:
        for task in (polled, exited):
            task.cancel()
        await asyncio.gather(polled, exited, return_exceptions=True)
    if hooks.first_poll is None:
        raise RuntimeError(
            f"{process.name} did not poll within {READY_TIMEOUT:g} s "
            f"(exit code {process.proc.returncode}):\n{process.tail()}"
        )


UPDATE_IDS_FROM = 100_000_000


async def settle(pid: int, limit: float = 10.0) -> float:
    """Wait until the bot is idle after its first getUpdates (work it put off until then, such
    as publishing its profile, is done): its CPU time still for 0.3 s. Returns the wait."""
    started = time.perf_counter()
    last, still_since = proc_cpu_seconds(pid), time.perf_counter()
    while time.perf_counter() - started < limit:
        await asyncio.sleep(0.05)
        now = proc_cpu_seconds(pid)
        if now != last:
            last, still_since = now, time.perf_counter()
        elif time.perf_counter() - still_since >= 0.3:
            break
    return time.perf_counter() - started


async def measure(
    label: str,
    argv: list[str],
    env_extra: dict[str, str],
    workdir: Path,
    args: argparse.Namespace,
    empty_symbol: str,
    replay: list[list[int]] | None = None,
) -> RunResult:
    """Start a fake and a bot, wait for its first poll, drive the games, stop it."""
    from tests.support.fake_telegram import FakeTelegram

    global UPDATE_IDS_FROM
    result = RunResult(label)
    # Update ids keep growing from run to run, as Telegram's do: the bot remembers the ids it
    # handled (in the database the runs share) and would skip an id it saw before.
    UPDATE_IDS_FROM += 1_000_000
    async with FakeTelegram(token=TOKEN, first_update_id=UPDATE_IDS_FROM) as fake:
        # The fake enforces Telegram's flood limits from the start; the bench measures the
        # bots, not the pace (both run unpaced: see the docstring).
        fake.flood_limits_off()
        hooks = Hooks(fake, args.fail_429, args.seed)
        env = child_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=fake.base_url,
            LOG_LEVEL="WARNING",
            **env_extra,
        )
        process = BotProcess(label, argv, workdir, env)
        try:
            await process.start(BOT_CPUS)
            await wait_ready(process, hooks)
            assert hooks.first_poll is not None
            result.startup = hooks.first_poll - process.started_at
            result.rss_after_startup = proc_status_mb(process.pid, "VmRSS")
            result.settle = await settle(process.pid)
            cpu_ready = proc_cpu_seconds(process.pid)
            threads_ready = thread_cpu_seconds(process.pid)
            bench_cpu = time.process_time()
            # The bench's own collector must not pause while it measures: a full collection
            # over what seeding and earlier runs left took ~100 ms here, and every tap in
            # flight meanwhile, of whichever bot, landed in the p99.
            gc.collect()
            gc.freeze()
            try:
                await Driver(fake, hooks, args, result, empty_symbol, replay).run()
            finally:
                gc.unfreeze()
            result.bench_cpu = time.process_time() - bench_cpu
            cpu_end = proc_cpu_seconds(process.pid)
            result.thread_cpu = {
                name: seconds - threads_ready.get(name, 0.0)
                for name, seconds in thread_cpu_seconds(process.pid).items()
            }
            if cpu_end is not None and cpu_ready is not None:
                result.cpu_run, result.cpu_total = cpu_end - cpu_ready, cpu_end
            result.peak_rss = proc_status_mb(process.pid, "VmHWM")
            # Up to the end of the run (the stop may add a broken poll).
            result.injected, result.stray = Counter(hooks.injected), Counter(hooks.stray)
            result.api_errors = Counter(hooks.error_texts)
        finally:
            result.exit_code = await process.stop()
    lines = process.output().splitlines()
    result.log_warnings = sum(" WARNING " in line for line in lines)
    errors = [line for line in lines if " ERROR " in line or " CRITICAL " in line]
    result.log_errors, result.error_lines = len(errors), errors[:3]
    if result.exit_code not in (0, None):
        print(f"{label} exited with {result.exit_code}; its output ends with:\n{process.tail()}")
    return result


# --- the database ---------------------------------------------------------------------------


async def seed_database(url: str, games: int, seed: int) -> tuple[int, int, float]:
    """Migrate, then add `games` finished games (users at random vs the AI levels) with their
    moves and players. Returns (games, moves, seconds)."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import insert
    from sqlalchemy.dialects.postgresql import insert as pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    from bot.games.db.engine import create_engine
    from bot.games.db.migrate import upgrade_database
    from bot.games.db.models import Game, Move, Player
    from core.ai import LEVELS, choose_move
    from core.rules import is_over, legal_moves, play, turn, winner

    started = time.perf_counter()
    await asyncio.to_thread(upgrade_database, url)
    if games <= 0:
        return 0, 0, time.perf_counter() - started
    rng = random.Random(seed)
    players, games_t, moves_t = Player.__table__, Game.__table__, Move.__table__
    now = datetime.now(UTC)
    engine = create_engine(url)
    moves_total = 0
    try:
        upsert = sqlite_insert if engine.dialect.name == "sqlite" else pg_insert
        rows = [
            {
                "id": pid,
                "name": f"Seeded {pid}",
                "language_code": "en",
                "created_at": now,
                "updated_at": now,
            }
            for pid in range(1, SEED_PLAYERS + 1)
        ]
        async with engine.begin() as conn:
            await conn.execute(upsert(players).on_conflict_do_nothing(index_elements=["id"]), rows)
        from bot.games.public_ids import new_public_id
        from core.board import Board
        from core.notation import format_cells

        for first in range(0, games, SEED_BATCH):
            game_rows, plays = [], []
            for n in range(first, min(games, first + SEED_BATCH)):
                pid, level = 1 + n % SEED_PLAYERS, LEVELS[n % len(LEVELS)]
                board, cells = Board.empty(), []
                while not is_over(board):
                    if turn(board) == "X":
                        cell = rng.choice(legal_moves(board))
                    else:
                        cell = choose_move(level, board, rng)
                    cells.append((cell, turn(board)))
                    board = play(board, cell)
                when = now - timedelta(minutes=games - n)
                won = winner(board)
                game_rows.append(
                    {
                        "chat_id": pid,
                        "message_id": n + 1,
                        "inline_message_id": None,
                        "board": format_cells(board),
                        "x_kind": "user",
                        "o_kind": level,
                        "x_player_id": pid,
                        "o_player_id": None,
                        "created_by_id": pid,
                        "invited_player_id": None,
                        "invited_username": None,
                        "language": "en",
                        "rematch_of_id": None,
                        "status": "finished",
                        "result": won or "draw",
                        "end_reason": "line" if won else "full",
                        "turn_started_at": when,
                        "nudges": 0,
                        "version": 1,
                        "shown_version": 1,  # their boards show them (none is behind)
                        "public_id": new_public_id(),
                        "created_at": when,
                        "updated_at": when,
                    }
                )
                plays.append((pid, when, cells))
            async with engine.begin() as conn:
                returned = await conn.execute(
                    insert(games_t).returning(games_t.c.id, sort_by_parameter_order=True),
                    game_rows,
                )
                ids = list(returned.scalars())
                move_rows = [
                    {
                        "game_id": game_id,
                        "ply": ply,
                        "cell": cell,
                        "mark": mark,
                        "player_id": pid if mark == "X" else None,
                        "created_at": when,
                    }
                    for game_id, (pid, when, cells) in zip(ids, plays, strict=True)
                    for ply, (cell, mark) in enumerate(cells, start=1)
                ]
                await conn.execute(insert(moves_t), move_rows)
                moves_total += len(move_rows)
    finally:
        await engine.dispose()
    return games, moves_total, time.perf_counter() - started


# --- the report -----------------------------------------------------------------------------


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:,.{digits}f}"


def ratio(ours: float | None, ceiling: float | None) -> str:
    if not ours or not ceiling or math.isnan(ours) or math.isnan(ceiling):
        return "-"
    return f"{ours / ceiling:.2f}"


def report(ours: RunResult, ceiling: RunResult | None) -> None:
    runs = [ours] + ([ceiling] if ceiling else [])
    width = 34

    def row(name: str, values: list[str], with_ratio: str | None = None) -> None:
        cells = "".join(f"{v:>12}" for v in values)
        print(f"{name:<{width}}{cells}{'' if with_ratio is None else f'{with_ratio:>14}'}")

    def num(getter: Any, digits: int = 1, compare: bool = False) -> tuple[list[str], str | None]:
        values = [getter(r) for r in runs]
        shown = [fmt(v, digits) if not isinstance(v, int) else f"{v:,}" for v in values]
        return shown, (ratio(values[0], values[1]) if compare and ceiling else None)

    print()
    header = "".join(f"{r.label:>12}" for r in runs)
    print(f"{'':<{width}}{header}{'ours/ceiling':>14}" if ceiling else f"{'':<{width}}{header}")

    def rate(count: int, r: RunResult) -> float | None:
        return count / r.wall if r.wall else None

    row("taps sent", *num(lambda r: len(r.taps)))
    row("taps shown (answered + edited)", *num(lambda r: len(r.shown)))
    row(f"lost taps (no edit in {ARGS.tap_timeout:g} s)", *num(lambda r: r.lost))
    row("refused taps (a pop-up, no edit)", *num(lambda r: r.refused))
    row("edited but never answered", *num(lambda r: r.unanswered))
    row("boards re-posted instead of edited", *num(lambda r: r.reposted))
    row("/start without a board in time", *num(lambda r: r.lost_starts))
    row("games completed", *num(lambda r: r.games_completed))
    row("wall time, s", *num(lambda r: r.wall, 2))
    row("taps/s", *num(lambda r: rate(len(r.shown), r), 1, True))
    row("games/s", *num(lambda r: rate(r.games_completed, r), 2, True))
    for name, getter in (("tap→answer", RunResult.answer_ms), ("tap→edit", RunResult.edit_ms)):
        for q in (50, 95, 99):
            row(f"{name} p{q}, ms", *num(lambda r, g=getter, q=q: percentile(g(r), q), 1, True))
    # With 429s a run is bound by latency: its wall time follows the mean, not the median.
    row("tap→edit mean, ms", *num(lambda r: mean_or_none(r.edit_ms()), 1, True))
    for q in (50, 99):
        row(f"/start→board p{q}, ms", *num(lambda r, q=q: percentile(r.start_ms, q), 1, True))
    row("/start→board mean, ms", *num(lambda r: mean_or_none(r.start_ms), 1, True))
    for q in (50, 99):
        row(
            f"first tap→edit p{q}, ms",
            *num(lambda r, q=q: percentile(r.edit_ms(first=True), q), 1, True),
        )
        row(
            f"later taps→edit p{q}, ms",
            *num(lambda r, q=q: percentile(r.edit_ms(first=False), q), 1, True),
        )
    row("bot CPU during the run, s", *num(lambda r: r.cpu_run, 2, True))
    row(
        "bot CPU per tap shown, ms",
        *num(lambda r: r.cpu_run * 1000 / len(r.shown) if r.cpu_run and r.shown else None, 2, True),
    )
    row(
        "  of it in the event loop's thread, ms",
        *num(lambda r: r.thread_cpu.get("main", 0) * 1000 / len(r.shown) if r.shown else None, 2),
    )
    row(
        "  of it in other threads, ms",
        *num(
            lambda r: (
                sum(v for k, v in r.thread_cpu.items() if k != "main") * 1000 / len(r.shown)
                if r.shown
                else None
            ),
            2,
        ),
    )
    row("bot CPU in all (start-up too), s", *num(lambda r: r.cpu_total, 2))
    row("bot peak RSS (VmHWM), MiB", *num(lambda r: r.peak_rss, 1, True))
    row("start-up to the first getUpdates, s", *num(lambda r: r.startup, 2, True))
    row("then busy until idle, s (not measured)", *num(lambda r: r.settle, 2))
    row("RSS after start-up (VmRSS), MiB", *num(lambda r: r.rss_after_startup, 1, True))
    row("bench CPU (fake + driver), s", *num(lambda r: r.bench_cpu, 2))
    for method in FAILED_METHODS:
        row(f"429 injected: {method}", *num(lambda r, m=method: r.injected[m]))
    row("other API errors (all methods)", *num(lambda r: sum(r.api_errors.values())))
    row("stray answers/edits/sends", *num(lambda r: sum(r.stray.values())))
    row("bot log lines: WARNING", *num(lambda r: r.log_warnings))
    row("bot log lines: ERROR", *num(lambda r: r.log_errors))
    for r in runs:
        if r.timed_out:
            print(
                f"{r.label}: the run hit --run-timeout {ARGS.run_timeout:g} s; figures are partial"
            )
        for text, count in sorted(r.api_errors.items()):
            print(f"{r.label}: {count} x API error {text}")
        for line in r.error_lines:
            print(f"{r.label}: log: {line[:300]}")
        for text, count in sorted(r.popups().items()):
            print(f"{r.label}: {count} x refused with the pop-up {text!r}")
    if ceiling:
        ours_rate, ceil_rate = rate(len(ours.shown), ours), rate(len(ceiling.shown), ceiling)
        ours_p99 = percentile(ours.edit_ms(), 99)
        ceil_p99 = percentile(ceiling.edit_ms(), 99)
        print(
            f"\nours/ceiling: throughput {ratio(ours_rate, ceil_rate)} "
            f"({fmt(ours_rate)} vs {fmt(ceil_rate)} taps/s), "
            f"p99 tap→edit {ratio(ours_p99, ceil_p99)} "
            f"({fmt(ours_p99)} vs {fmt(ceil_p99)} ms)"
        )


#: Where a function's own time goes in the breakdown, by the first pattern its file matches.
PROFILE_CATEGORIES = (
    (
        "Telegram I/O: HTTP client",
        (
            "/httpx/",
            "/httpcore/",
            "/anyio/",
            "/h11/",
            "/sniffio/",
            "/aiohttp/",
            "/multidict/",
            "/yarl/",
            "/telegram/request/",
            "bot/telegram/request.py",
            "importlib",
            "/ssl.py",
        ),
    ),
    ("Telegram I/O: update parsing and objects", ("/telegram/_", "/telegram/__init__", "/json/")),
    ("PTB dispatch (telegram.ext)", ("/telegram/ext/",)),
    (
        "database (SQLAlchemy, driver)",
        (
            "/sqlalchemy/",
            "/aiosqlite/",
            "/asyncpg/",
            "sqlite3",
            "greenlet",
            "bot/games/db/",
            "bot/games/db/store.py",
        ),
    ),
    ("use-case and rules (bot/games, core)", ("bot/games/", "core/")),
    (
        "rendering (texts, keyboards, boards)",
        (
            "bot/views/render.py",
            "bot/views/keyboards.py",
            "bot/locales/texts.py",
            "bot/chat/boards.py",
            "bot/wire/callback_data.py",
            "bot/wire/codec.py",
            "/babel/",
        ),
    ),
    ("handlers, flood gate, other bot code", ("bot/",)),
    (
        "event loop and sockets",
        (
            "asyncio/",
            "selectors.py",
            "select.epoll",
            "socket",
            "_contextvars",
            "threading.py",
            "queue",
        ),
    ),
)
OTHER_CATEGORY = "other (logging, stdlib)"


def _category(function: tuple[str, int, str]) -> str | None:
    """The breakdown's category of a profiled function; None for a builtin (its time goes to
    its callers)."""
    filename, _line, name = function
    where = filename if filename != "~" else name
    for category, patterns in PROFILE_CATEGORIES:
        if any(pattern in where for pattern in patterns):
            return category
    return None if filename == "~" else OTHER_CATEGORY


def profile_breakdown(stats: pstats.Stats) -> Counter[str]:
    """Own time per category. A builtin's own time (a dict lookup, `isinstance`, a socket
    call) counts where it was called from, split by its callers' share of it."""
    totals: Counter[str] = Counter()
    raw = stats.stats  # type: ignore[attr-defined]
    for function, (_cc, _nc, own, _cum, callers) in raw.items():
        category = _category(function)
        if category is not None:
            totals[category] += own
            continue
        shares = {caller: edge[2] for caller, edge in callers.items()}
        spread = sum(shares.values())
        if not spread:
            totals[OTHER_CATEGORY] += own
            continue
        for caller, share in shares.items():
            totals[_category(caller) or OTHER_CATEGORY] += own * share / spread
    return totals


def print_profile(profiles: list[tuple[str, Path, int]], top: int = 25) -> None:
    """Each bot's own time per tap by category, side by side; then ours's top functions.
    `profiles` holds (label, stats file, taps shown), ours first."""
    breakdowns: list[tuple[str, Counter[str], int]] = []
    for label, path, taps in profiles:
        if not path.is_file():
            print(f"no profile of {label} at {path}: the bot did not exit cleanly")
            continue
        stats = pstats.Stats(str(path), stream=io.StringIO())
        totals = profile_breakdown(stats)
        # The loop's idle wait for the next event is not work: it is left out.
        totals["event loop and sockets"] -= sum(
            own
            for (filename, _line, name), (_cc, _nc, own, _cum, _callers) in stats.stats.items()  # type: ignore[attr-defined]
            if filename == "~" and "poll' of 'select.epoll" in name
        )
        breakdowns.append((label, totals, max(taps, 1)))
    if not breakdowns:
        return
    print(
        "\nunder cProfile, from the first update on: own time per tap shown, ms, by category"
        "\n(main thread only: SQLite's own work runs on aiosqlite's thread; idle waits left out;"
        "\nprofiling inflates every call, so compare the rows, not the totals with the clock)"
    )
    categories = [c for c, _p in PROFILE_CATEGORIES] + [OTHER_CATEGORY]
    header = "".join(f"{label:>12}" for label, _t, _n in breakdowns)
    print(f"{'':<44}{header}")
    for category in categories:
        cells = "".join(
            f"{totals[category] * 1000 / taps:>12.2f}" for _l, totals, taps in breakdowns
        )
        print(f"{category:<44}{cells}")
    cells = "".join(
        f"{sum(totals.values()) * 1000 / taps:>12.2f}" for _l, totals, taps in breakdowns
    )
    print(f"{'all':<44}{cells}")
    path = profiles[0][1]
    if not path.is_file():
        return
    project = f"{ROOT}/(bot|core)/"
    listings = (
        ("cumulative", f"top {top} functions by cumulative time", None, top),
        ("cumulative", "top 15 functions of bot/ and core/ by cumulative time", project, 15),
        ("tottime", f"top {top} functions by own time", None, top),
    )
    print(
        "\ncumulative times overlap across concurrent updates (a coroutine counts one call per"
        "\nresumption; SQLAlchemy's greenlets leave suspended frames on the stack)"
    )
    for key, what, restriction, count in listings:
        out = io.StringIO()
        stats = pstats.Stats(str(path), stream=out).sort_stats(key)
        if restriction is None:
            stats.strip_dirs().sort_stats(key).print_stats(count)
        else:
            stats.print_stats(restriction, count)
        text = out.getvalue().replace(f"{ROOT}/", "")
        start = text.find("   ncalls")
        print(f"\nours under cProfile: {what}")
        print(text[start:].rstrip() if start >= 0 else text.rstrip())


# --- main -----------------------------------------------------------------------------------

ARGS: argparse.Namespace


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chats", type=int, default=20, help="private chats (default 20)")
    parser.add_argument(
        "--in-flight", type=int, default=10, help="updates in flight at most (default 10)"
    )
    parser.add_argument("--games", type=int, default=5, help="games per chat (default 5)")
    parser.add_argument("--database-url", help="the bot's DATABASE_URL (default: a SQLite file)")
    parser.add_argument(
        "--fail-429", type=float, default=0.0, help="fraction of calls answered 429 (default 0)"
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--tap-timeout", type=float, default=10.0, help="a tap is lost after this (default 10 s)"
    )
    parser.add_argument(
        "--seed-games",
        type=int,
        default=10_000,
        help="finished games in the database before the bot starts (default 10,000)",
    )
    parser.add_argument(
        "--run-timeout", type=float, default=900.0, help="bound on one run (default 900 s)"
    )
    parser.add_argument(
        "--first-tap-delay",
        type=float,
        default=0.0,
        help="seconds between a new board and its first tap (default 0: at once)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="paired runs (ours, then the ceiling), with their medians at the end (default 1)",
    )
    parser.add_argument("--no-ceiling", action="store_true", help="skip the ceiling bot")
    parser.add_argument(
        "--metrics", action="store_true", help="ours with METRICS_PORT set (/metrics served)"
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="do not pin the bench to the first CPU and the bots to the second",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the working directory (logs, database)"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run both bots under cProfile from their first update on; print where each "
        "one's time went per tap, and ours's top functions (figures are then inflated)",
    )
    parser.add_argument("--ceiling-bot", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--unpaced-bot", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", help=argparse.SUPPRESS)
    parser.add_argument("--concurrent-updates", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument("--backoff", type=float, default=0.5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.chats < 1 or args.in_flight < 1 or args.games < 1 or args.runs < 1:
        parser.error("--chats, --in-flight, --games and --runs must be at least 1")
    if not 0 <= args.fail_429 < 1:
        parser.error("--fail-429 must be a fraction from 0 to below 1")
    return args


async def bench(args: argparse.Namespace) -> None:
    import telegram
    from sqlalchemy.engine import make_url

    with contextlib.ExitStack() as stack:
        if args.keep:
            workdir = Path(tempfile.mkdtemp(prefix="bench-e2e-"))
            print(f"working directory (kept): {workdir}")
        else:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-e2e-")))
        url = args.database_url or f"sqlite+aiosqlite:///{workdir / 'bot.sqlite3'}"
        shown_url = make_url(url).render_as_string(hide_password=True)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"e2e: {args.chats} chats x {args.games} games vs hard, at most {args.in_flight} "
            f"updates in flight, 429 on {args.fail_429:.0%} of "
            f"answer/edit/send calls, seed {args.seed}"
        )
        pinned = "not pinned (--no-pin)" if args.no_pin else pin_cpus()
        print(
            f"machine: {os.cpu_count()} CPUs ({pinned}), load average {load}; Python "
            f"{platform.python_version()}, python-telegram-bot {telegram.__version__}"
        )
        # As a package installed by pip is: compiled once. (This machine's environment sets
        # PYTHONDONTWRITEBYTECODE, so without this every start would compile the bot anew.)
        compileall.compile_dir(ROOT / "bot", quiet=1)
        compileall.compile_dir(ROOT / "core", quiet=1)
        compileall.compile_dir(ROOT / "migrations", quiet=1)
        games, moves, seconds = await seed_database(url, args.seed_games, args.seed)
        print(
            f"database: {shown_url}; seeded {games:,} finished games, {moves:,} moves "
            f"in {seconds:.1f} s"
        )

        pairs: list[tuple[RunResult, RunResult | None]] = []
        schedule: list[list[int]] | None = None
        for run in range(1, args.runs + 1):
            # Every other pair runs the ceiling first (on the last schedule of ours), so that a
            # machine that slows down or speeds up over the runs favours neither bot. Not with
            # 429s: there the waits, not the CPU, set the pace, and the ceiling must replay the
            # very games ours played to meet the same 429s.
            ceiling_first = run % 2 == 0 and schedule is not None and not args.fail_429
            if args.runs > 1:
                order = "ceiling, then ours" if ceiling_first else "ours, then the ceiling"
                print(f"\n=== paired run {run} of {args.runs} ({order})")
            ours, ceiling = await one_pair(
                args,
                url,
                workdir,
                profile=args.profile and run == 1,
                ceiling_schedule=schedule if ceiling_first else None,
            )
            schedule = ours.schedule
            pairs.append((ours, ceiling))
        if args.runs > 1:
            report_medians(pairs)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"load average at the end: {load}")


async def one_pair(
    args: argparse.Namespace,
    url: str,
    workdir: Path,
    *,
    profile: bool,
    ceiling_schedule: list[list[int]] | None = None,
) -> tuple[RunResult, RunResult | None]:
    """Ours, then the ceiling on the same schedule (the ceiling first, on `ceiling_schedule`,
    when that is given); the report of both."""
    from bot.app import CONCURRENT_UPDATES
    from bot.config import Settings
    from bot.locales import en

    prof = workdir / "bot.prof" if profile else None
    argv = [sys.executable, str(THIS_FILE), "--unpaced-bot"]
    if prof is not None:
        argv += ["--profile-to", str(prof)]
    ceiling: RunResult | None = None
    ceiling_prof = workdir / "ceiling.prof" if profile else None
    ceiling_argv: list[str] | None = None
    if not args.no_ceiling:
        backoff = Settings(token=TOKEN).retry_backoff_seconds
        ceiling_argv = [
            sys.executable,
            str(THIS_FILE),
            "--ceiling-bot",
            "--concurrent-updates",
            str(CONCURRENT_UPDATES),
            "--backoff",
            str(backoff),
        ]
        if ceiling_prof is not None:
            ceiling_argv += ["--profile-to", str(ceiling_prof)]
    if ceiling_argv is not None and ceiling_schedule is not None:
        ceiling = await measure(
            "ceiling", ceiling_argv, {}, workdir, args, CEIL_EMPTY, replay=ceiling_schedule
        )
    settings = {"DATABASE_URL": url}
    if args.metrics:
        from tests.support.processes import free_port

        settings["METRICS_PORT"] = str(free_port())
    ours = await measure("ours", argv, settings, workdir, args, en.EMPTY_SYMBOL)
    if ceiling_argv is not None and ceiling is None:
        ceiling = await measure(
            "ceiling", ceiling_argv, {}, workdir, args, CEIL_EMPTY, replay=ours.schedule
        )
    report(ours, ceiling)
    if prof is not None:
        profiles = [("ours", prof, len(ours.shown))]
        if ceiling is not None and ceiling_prof is not None:
            profiles.append(("ceiling", ceiling_prof, len(ceiling.shown)))
        print_profile(profiles)
    return ours, ceiling


def report_medians(pairs: list[tuple[RunResult, RunResult | None]]) -> None:
    """The median over the paired runs of each figure the goal is stated in."""

    def taps_per_second(r: RunResult) -> float:
        return len(r.shown) / r.wall if r.wall else math.nan

    def cpu_per_tap(r: RunResult) -> float:
        return r.cpu_run * 1000 / len(r.shown) if r.cpu_run and r.shown else math.nan

    def p99(r: RunResult) -> float:
        return percentile(r.edit_ms(), 99)

    def median(values: list[float]) -> float:
        return statistics.median(values) if values else math.nan

    figures: list[tuple[str, Any]] = [
        ("throughput, taps/s", taps_per_second),
        ("p99 tap→edit, ms", p99),
        ("bot CPU per tap shown, ms", cpu_per_tap),
    ]
    print(f"\nmedians of {len(pairs)} paired runs (ours, then the ceiling, each time)")
    print(f"{'':<34}{'ours':>12}{'ceiling':>12}{'ours/ceiling':>14}")
    for name, getter in figures:
        ours = median([getter(o) for o, _c in pairs])
        ceiling = median([getter(c) for _o, c in pairs if c is not None])
        ratios = median([getter(o) / getter(c) for o, c in pairs if c is not None])
        print(f"{name:<34}{fmt(ours):>12}{fmt(ceiling):>12}{fmt(ratios, 2):>14}")
    for name, getter in (
        ("lost taps (all runs)", lambda r: r.lost),
        ("start-up to the first getUpdates, s", lambda r: r.startup),
        ("peak RSS (VmHWM), MiB", lambda r: r.peak_rss),
    ):
        values = [getter(o) for o, _c in pairs]
        shown = sum(values) if name.startswith("lost") else median(values)
        print(f"{name:<34}{fmt(shown, 2) if isinstance(shown, float) else shown:>12}")


def main(argv: list[str]) -> int:
    global ARGS
    args = ARGS = parse_args(argv)
    if args.ceiling_bot:
        return run_ceiling_bot(args.concurrent_updates, args.backoff, args.profile_to)
    if args.unpaced_bot:
        return run_unpaced_bot(args.profile_to)
    try:
        asyncio.run(bench(args))
    finally:
        kill_leftovers()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
