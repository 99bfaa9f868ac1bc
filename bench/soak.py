"""Soak: two webhook instances on one database, under Bot API faults and `kill -9`s.

Run from the repository root:

    .venv/bin/python bench/soak.py [--minutes 10] [--database-url URL] [--seed 1]
                                   [--kill-every 60] [--fault-every 2] [--settle 60]

It starts the fake Bot API server of the tests (tests/support/fake_telegram.py, with
Telegram's own flood limits: 30 messages a second in all, 20 a minute in a group) in this
process's event loop, and two bot instances in webhook mode (`python -m bot`, PYTHONPATH set to
this checkout, the same WEBHOOK_SECRET and DATABASE_URL, BOARD_CATCH_UP_SECONDS=--catch-up).
The database is a SQLite file in a temporary folder by default; a `postgresql+asyncpg://` URL
names a server, on which a fresh database `soak_<random>` is created and dropped at the end
(`--reuse-database`: the URL's own database, as it is).

People, each at a human pace (a step every --pause-min to --pause-max seconds), never waiting
for the bot: they act on the board the fake shows them now. In private chats against the AI
(`/start easy`, `/start hard`) and on "two players, one phone" (`/start user user`) they tap
a random free cell; in a group two people take turns through `/challenge` and Join; strangers
send `/play`, are paired, and each taps on their own board (rated games). Out of turn they tap
anyway now and then. A finished board gets a new game; a board unchanged for --give-up
seconds too (`/stop` first between strangers).

Their updates are built by the fake's helpers (`send_text`, `tap`) and POSTed by this script,
as Telegram would: to the two instances alternately, one in --duplicates (0.2) to both at once,
as when Telegram retries a delivery; a delivery no instance answered 200 is sent again later
(1, 2, 4, 8 s), to the next instance. Meanwhile the fake injects faults, one every
--fault-every seconds on average: 429 (retry after 1-3 s) and 502 on editMessageText,
sendMessage or answerCallbackQuery, answers held past the bot's 5 s read timeout (the call
carried out), edits carried out late (after the bot gave up on them), and a chat's edits held
back for 1-4 s. Every --kill-every seconds one instance (in turn) gets SIGKILL and is started
again at once. With --db-fault-every (SQLite only), every that many seconds the database is
away for --db-fault-seconds, in turn: its files moved aside ("file gone": renamed, then put
back as they were) or made read-only (`chattr +i` as root, else no write permission), half a
period after the kills when both periods are equal; the bot must store nothing it answers as
done meanwhile, and take the taps again once it is back.

At the end the faults and the people stop, and the script waits for deliveries, then until no
board is behind (at most --settle seconds), reads the database and checks:

* boards behind: every message of the fake that carries a game's buttons shows the stored game
  (its cells, the move number in its cells' data, Join / Resign as the status says), both
  boards of a stranger game; and, from the database, games with `shown_version < version`;
* moves: per game, plies 1..n without gaps or duplicates, marks in turn, each by its side's
  player, on free cells, replaying to the stored board;
* lost moves: taps answered as played (no pop-up) whose move is not stored;
* duplicated moves: moves stored that no tap of that player asked for, or whose tap was
  answered with a refusal; taps answered as played twice for one move;
* games rated twice: per player and pool, the ratings table's count of rated games against the
  rated games (a rating change stored on the game) they played;

and prints them with the totals: taps, moves, games, rated games, kills, deliveries, injected
faults by kind, the fake's own 429s (its flood limits: the bot went too fast; should be 0), the
instances' ERROR lines, and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.locales import en  # noqa: E402
from core.board import Board  # noqa: E402
from core.notation import format_cells  # noqa: E402
from core.rules import play  # noqa: E402
from tests.support import unwritable  # noqa: E402
from tests.support.chat import board_cells, cell_data, words  # noqa: E402
from tests.support.fake_telegram import FakeTelegram, StoredMessage  # noqa: E402
from tests.support.processes import WebhookBot, post_update  # noqa: E402
from tests.support.telegram_rules import log as fake_log  # noqa: E402

SECRET = "soak_secret-of-both-instances"
USER_ID_BASE = 700_000_000
GROUP_ID_BASE = -100_700_000_000
READY_TIMEOUT = 120.0  # a process's start to its /healthz answering 200 (a loaded machine)
POST_TIMEOUT = 10.0  # a webhook POST not answered by then failed (Telegram sends it again)
REDELIVERY_MAX = 8.0
#: The bot's read timeout for Bot API calls (bot/telegram/http_transport.py): a slow answer
#: or a late edit comes after it.
BOT_READ_TIMEOUT = 5.0
SLOW = BOT_READ_TIMEOUT + 1.5
#: The bot's BOARD_DOUBT_SECONDS (its default): a board whose edit went unanswered is drawn
#: again after this long.
BOARD_DOUBT = 10.0
START_RETRY = 10.0  # seconds before a command that brought no board is sent again
FAULT_METHODS = ("editMessageText", "sendMessage", "answerCallbackQuery")
INJECTED = "(injected)"  # in the description of the fake's injected 429s, not its own
#: httpx and aiohttp honour these: the bot must talk to 127.0.0.1 directly.
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
CELL_RE = re.compile(r"m:(\d+):(\d+):(\d+)")
GAME_BUTTON_RE = re.compile(r"(m|r|j):(\d+)(?::|$)")
LIVE = ("open", "active")
OVER = ("finished", "abandoned")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--minutes", type=float, default=10.0, help="how long the people play (10)")
    add("--database-url", default=None, help="default: a SQLite file in a temporary folder")
    add("--reuse-database", action="store_true", help="PostgreSQL: use the URL's database")
    add("--seed", type=int, default=1, help="random seed (1)")
    add("--instances", type=int, choices=(1, 2), default=2, help="webhook instances (2)")
    add("--kill-every", type=float, default=60.0, help="seconds between kill -9s (60)")
    add("--fault-every", type=float, default=2.0, help="mean seconds between faults (2)")
    add("--db-fault-every", type=float, default=0.0, help="SQLite away this often (0: never)")
    add("--db-fault-seconds", type=float, default=8.0, help="for this long each time (8)")
    add("--duplicates", type=float, default=0.2, help="share delivered to both (0.2)")
    add("--ai-chats", type=int, default=4, help="private chats against the AI (4)")
    add("--phones", type=int, default=2, help="two players on one phone (2)")
    add("--groups", type=int, default=1, help="groups with two people playing (1)")
    add("--strangers", type=int, default=4, help="people playing strangers via /play (4)")
    add("--pause-min", type=float, default=0.8, help="a person's shortest pause (0.8 s)")
    add("--pause-max", type=float, default=2.5, help="a person's longest pause (2.5 s)")
    add("--out-of-turn", type=float, default=0.1, help="share of taps out of turn (0.1)")
    add("--give-up", type=float, default=40.0, help="a board unchanged this long: new game")
    add("--catch-up", type=float, default=1.0, help="BOARD_CATCH_UP_SECONDS (1)")
    add("--settle", type=float, default=60.0, help="at most this long for boards (60 s)")
    add("--keep", action="store_true", help="keep the temporary folder (logs) and say where")
    return parser.parse_args(argv)


# --- the counts -----------------------------------------------------------------------------


@dataclass
class Counts:
    taps: int = 0
    commands: int = 0
    joins: int = 0
    gave_up: int = 0
    kills: int = 0
    deliveries: int = 0
    duplicated: int = 0
    redelivered: int = 0
    posts: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    ready_s: list[float] = field(default_factory=list)
    started_at: list[float] = field(default_factory=list)  # when each process listened
    load: list[float] = field(default_factory=list)


@dataclass
class Findings:
    """What the checks found; every list holds a few examples, the counts are complete."""

    games: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    human_moves: int = 0
    boards_checked: int = 0
    boards_behind: int = 0
    boards_behind_live: int = 0
    orphan_boards: int = 0  # a message with a game's buttons that the game does not name
    live_unposted: int = 0  # a live game with no board message stored
    versions_behind: int = 0
    bad_move_orders: int = 0
    lost_moves: int = 0
    moves_without_tap: int = 0
    moves_told_refused: int = 0
    told_played_twice: int = 0
    taps_cell: int = 0
    taps_played: int = 0
    taps_refused: Counter[str] = field(default_factory=Counter)
    taps_busy: int = 0
    taps_unanswered: int = 0
    rated_games: int = 0
    rated_twice: int = 0  # rating applications beyond the rated games (summed over players)
    rating_rows_off: int = 0  # (player, pool) rows whose count differs
    rated_missing: int = 0  # finished strangers' or AI games (moved in) without a change
    inbox_left: int = 0
    handled_updates: int = 0
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def example(self, kind: str, line: str) -> None:
        if len(self.examples[kind]) < 5:
            self.examples[kind].append(line)


# --- the instances and the deliveries -------------------------------------------------------


class Slot:
    """One of the two instances behind the load balancer: its process of the moment (None
    while it is restarted), and every process it ran, for their logs."""

    def __init__(
        self, name: str, fake: FakeTelegram, root: Path, database_url: str, extra: dict[str, str]
    ) -> None:
        self.name = name
        self.fake = fake
        self.cwd = root / name
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.database_url = database_url
        self.extra = extra
        self.process: WebhookBot | None = None
        self.history: list[WebhookBot] = []

    async def start(self, counts: Counts) -> None:
        name = f"{self.name}{len(self.history)}"
        process = WebhookBot(self.fake, self.cwd, self.database_url, SECRET, name=name)
        process.env.update(self.extra)
        for var in PROXY_VARS:
            process.env.pop(var, None)
        self.history.append(process)
        began = time.monotonic()
        await process.start()
        await process.wait_listening(READY_TIMEOUT)
        counts.ready_s.append(time.monotonic() - began)
        counts.started_at.append(time.monotonic())
        self.process = process

    async def kill(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            await process.kill()

    async def stop(self) -> int | None:
        process, self.process = self.process, None
        if process is None or process.proc is None:
            return None
        with contextlib.suppress(AssertionError):
            return await process.stop(signal.SIGTERM, 15.0, exited_ok=True)
        return -9


class Delivery:
    """Telegram's side of the webhook: each update POSTed to the next instance (or, one in
    --duplicates, to both at once); sent again later while no instance answered 200."""

    def __init__(self, slots: list[Slot], rng: random.Random, share: float, counts: Counts) -> None:
        self.slots = slots
        self.rng = rng
        self.share = share
        self.counts = counts
        self.turn = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.idle = asyncio.Event()
        self.idle.set()
        self.http: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Delivery:
        self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=POST_TIMEOUT))
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        assert self.http is not None
        await self.http.close()

    def send(self, update: dict[str, Any]) -> None:
        self.counts.deliveries += 1
        task = asyncio.create_task(self._deliver(update))
        self.tasks.add(task)
        self.idle.clear()
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not self.tasks:
            self.idle.set()

    async def drained(self, timeout: float) -> bool:  # noqa: ASYNC109
        """Until every update got its 200 (or `timeout`); whether they all did."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.idle.wait(), timeout)
        return not self.tasks

    async def _deliver(self, update: dict[str, Any]) -> None:
        both = self.rng.random() < self.share
        self.counts.duplicated += both
        wait = 1.0
        while True:
            if both:
                targets = self.slots
            else:
                targets = [self.slots[self.turn % len(self.slots)]]
                self.turn += 1
            results = await asyncio.gather(*(self._post(slot, update) for slot in targets))
            if any(results):
                return
            self.counts.redelivered += 1
            await asyncio.sleep(wait)
            wait, both = min(2 * wait, REDELIVERY_MAX), False

    async def _post(self, slot: Slot, update: dict[str, Any]) -> bool:
        process = slot.process
        if process is None:  # being restarted: nothing listens there
            self.counts.posts["refused"] += 1
            return False
        try:
            status = await post_update(process.url, update, SECRET, self.http)
        except (aiohttp.ClientError, TimeoutError):
            self.counts.posts["failed"] += 1
            return False
        self.counts.posts[str(status)] += 1
        return status == 200


# --- the people -----------------------------------------------------------------------------


def shown_cells(fake: FakeTelegram, message: StoredMessage) -> str | None:
    """The 3×3 board a message shows, or None if it shows none."""
    try:
        cells = board_cells(fake, message)
    except (KeyError, IndexError):
        return None
    return cells if len(cells) == 9 else None


def buttons(fake: FakeTelegram, message: StoredMessage) -> list[str]:
    return [data for row in fake.keyboard(message) for _, data in row if data]


def is_live(fake: FakeTelegram, message: StoredMessage) -> bool:
    """A board in play: cells, a Resign button, no result line."""
    return not words(message) and any(d.startswith("r:") for d in buttons(fake, message))


def sides(message: StoredMessage) -> tuple[str, str]:
    """The names of ❌ and ⭕ on a board's first line (`❌ Ann vs ⭕ Ben`)."""
    first = message.text.splitlines()[0] if message.text else ""
    x, _, o = first.partition(" vs ")
    return x.removeprefix("❌ ").strip(), o.removeprefix("⭕ ").strip()


@dataclass
class Person:
    """Someone who plays: where, how, and what they last saw."""

    index: int
    user: dict[str, Any]
    chat: dict[str, Any]
    kind: str  # "easy", "hard", "phone", "group", "stranger"
    rng: random.Random
    group: GroupTable | None = None
    asked_at: float = -1e9  # when a command that should bring a board was sent last
    seen: tuple[Any, ...] = ()
    seen_at: float = 0.0

    @property
    def name(self) -> str:
        return str(self.user["first_name"])


@dataclass
class GroupTable:
    """Two people in one group: who challenges next, and when anyone last did."""

    chat: dict[str, Any]
    challenged_at: float = -1e9


class People:
    """The people's steps: each acts on what the fake shows now and sends what they do to
    the delivery."""

    def __init__(
        self, fake: FakeTelegram, delivery: Delivery, args: argparse.Namespace, counts: Counts
    ) -> None:
        self.fake = fake
        self.delivery = delivery
        self.args = args
        self.counts = counts
        self.people: list[Person] = []
        kinds = ["easy", "hard"] * ((args.ai_chats + 1) // 2)
        kinds = kinds[: args.ai_chats] + ["phone"] * args.phones + ["stranger"] * args.strangers
        for kind in kinds:
            self._add(kind)
        for g in range(args.groups):
            table = GroupTable(FakeTelegram.group_chat(GROUP_ID_BASE - g, f"Soak group {g}"))
            for _ in range(2):
                self._add("group", table)

    def _add(self, kind: str, table: GroupTable | None = None) -> None:
        index = len(self.people)
        user = FakeTelegram.user(USER_ID_BASE + index, f"P{index}")
        chat = table.chat if table is not None else FakeTelegram.private_chat(user)
        rng = random.Random(self.args.seed * 1_000_003 + index)
        self.people.append(Person(index, user, chat, kind, rng, table))

    @property
    def chat_ids(self) -> list[int]:
        return sorted({p.chat["id"] for p in self.people})

    async def run(self, person: Person, stop: asyncio.Event) -> None:
        await asyncio.sleep(person.rng.uniform(0, self.args.pause_max))
        while not stop.is_set():
            self.step(person)
            await asyncio.sleep(person.rng.uniform(self.args.pause_min, self.args.pause_max))

    # What a person does next.

    def step(self, person: Person) -> None:
        now = time.monotonic()
        board = self._newest_board(person)
        if board is not None and is_live(self.fake, board):
            look = (board.message_id, board.edit_count)
            if look != person.seen:
                person.seen, person.seen_at = look, now
            if now - person.seen_at > self.args.give_up:
                self._give_up(person, now)
            elif self._may_tap(person, board):
                self._tap_cell(person, board)
            return
        if person.kind == "group":
            self._group_step(person, now)
        elif now - person.asked_at > START_RETRY:
            self._new_game(person, now)

    def _newest_board(self, person: Person) -> StoredMessage | None:
        for message in reversed(self.fake.bot_messages(person.chat["id"])):
            if shown_cells(self.fake, message) is not None:
                return message
            if any(d.startswith("j:") for d in buttons(self.fake, message)):
                return None  # an open challenge is newer than any board
        return None

    def _may_tap(self, person: Person, board: StoredMessage) -> bool:
        if person.kind == "phone" or person.rng.random() < self.args.out_of_turn:
            return True
        cells = shown_cells(self.fake, board) or ""
        x_to_move = cells.count("_") % 2 == 1
        x_name, o_name = sides(board)
        return (x_name if x_to_move else o_name) == person.name

    def _tap_cell(self, person: Person, board: StoredMessage) -> None:
        cells = shown_cells(self.fake, board) or ""
        free = [i for i, mark in enumerate(cells) if mark == "_"]
        if not free:
            return
        cell = person.rng.choice(free)
        self.fake.tap(person.user, board, cell_data(self.fake, board, cell, prefix="m:"))
        self.counts.taps += 1
        self._post_last()

    def _say(self, person: Person, words_: str) -> None:
        self.fake.send_text(person.user, words_, chat=person.chat)
        self.counts.commands += 1
        self._post_last()

    def _post_last(self) -> None:
        # The helpers queue the update they build: the newest one is it (one event loop).
        self.delivery.send(dict(self.fake.updates[-1]))

    def _new_game(self, person: Person, now: float) -> None:
        """A private chat with no board in play: the question "your game is still on"
        answered by resigning it, or a new game asked for."""
        newest = self.fake.bot_messages(person.chat["id"])[-1:]
        resign = [d for m in newest for d in buttons(self.fake, m) if d.startswith("nr:")]
        if resign:
            self.fake.tap(person.user, newest[0], resign[0])
            self.counts.taps += 1
            self._post_last()
        else:
            command = {"easy": "/start easy", "hard": "/start hard", "phone": "/start user user"}
            self._say(person, command.get(person.kind, "/play"))
        person.asked_at = now

    def _give_up(self, person: Person, now: float) -> None:
        """A board that stayed the same too long: a new game (strangers `/stop` theirs)."""
        self.counts.gave_up += 1
        person.seen_at = now
        if person.kind == "stranger":
            self._say(person, "/stop")
        elif person.kind == "group":
            self._say(person, "/challenge")
        else:
            self._new_game(person, now)

    def _group_step(self, person: Person, now: float) -> None:
        """No board in play in the group: join the other's open challenge, or challenge."""
        table = person.group
        assert table is not None
        for message in reversed(self.fake.bot_messages(table.chat["id"])):
            join = [d for d in buttons(self.fake, message) if d.startswith("j:")]
            if join:
                if sides(message)[0] != person.name:
                    self.fake.tap(person.user, message, join[0])
                    self.counts.joins += 1
                    self._post_last()
                elif now - table.challenged_at > self.args.give_up:
                    table.challenged_at = now
                    self._say(person, "/challenge")
                return
            if shown_cells(self.fake, message) is not None:
                break
        if now - table.challenged_at > START_RETRY and person.rng.random() < 0.5:
            table.challenged_at = now
            self._say(person, "/challenge")


# --- the faults and the kills ---------------------------------------------------------------


async def inject_faults(
    fake: FakeTelegram,
    chat_ids: list[int],
    args: argparse.Namespace,
    counts: Counts,
    stop: asyncio.Event,
) -> None:
    """One fault every --fault-every seconds on average, of a kind drawn at random."""
    rng = random.Random(args.seed * 7_919)
    kinds = ("429", "502", "slow answer", "late edit", "held edits")
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.expovariate(1 / args.fault_every))
            return
        kind = rng.choice(kinds)
        method = rng.choice(FAULT_METHODS)
        if kind == "429":
            after = rng.randint(1, 3)
            description = f"Too Many Requests: retry after {after} {INJECTED}"
            fake.fail_next(method, 429, description, retry_after=after)
        elif kind == "502":
            fake.fail_next(method, 502)
        elif kind == "slow answer":
            fake.lose_answer_next(method, hold=SLOW)
        elif kind == "late edit":
            method = "editMessageText"
            fake.land_late_next(method, after=SLOW)
        else:
            method = "editMessageText"
            fake.hold_next(method, 2, chat_id=rng.choice(chat_ids))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), rng.uniform(1.0, 4.0))
            fake.release_held()
        counts.faults[f"{kind} {method}"] += 1


async def kill_in_turn(
    slots: list[Slot], args: argparse.Namespace, counts: Counts, stop: asyncio.Event
) -> None:
    """Every --kill-every seconds: SIGKILL the next instance and start it again at once."""
    turn = 0
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), args.kill_every)
            return
        slot = slots[turn % len(slots)]
        turn += 1
        await slot.kill()
        counts.kills += 1
        await slot.start(counts)


async def database_away(
    database_url: str, args: argparse.Namespace, counts: Counts, stop: asyncio.Event
) -> None:
    """Every --db-fault-every seconds, the SQLite database away for --db-fault-seconds: its
    files moved aside and put back, or made read-only, in turn."""
    if not database_url.startswith("sqlite") or args.db_fault_every <= 0:
        return
    path = Path(make_url(database_url).database or "")
    turn = 0
    # Half a period late, so that with --kill-every equal to it the database is away between
    # kills: an instance started while the file is gone makes a new, empty database there
    # (as a first start does), whose games the file put back then hides.
    wait = args.db_fault_every / 2
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)
            return
        wait = args.db_fault_every
        files = [f for f in (path, *(Path(f"{path}{s}") for s in ("-wal", "-shm"))) if f.exists()]
        kind = ("file gone", "read-only")[turn % 2]
        turn += 1
        with away(files, kind):
            counts.faults[f"db {kind}"] += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), args.db_fault_seconds)


@contextlib.contextmanager
def away(files: list[Path], kind: str) -> Iterator[None]:
    """The database's files moved aside (`file gone`) or read-only while inside."""
    if kind == "file gone":
        aside = [f.with_name(f.name + ".aside") for f in files]
        for file, moved in zip(files, aside, strict=True):
            file.rename(moved)
        try:
            yield
        finally:
            for file, moved in zip(files, aside, strict=True):
                moved.rename(file)
        return
    with unwritable.read_only(files):
        yield


async def sample_load(counts: Counts, stop: asyncio.Event) -> None:
    while not stop.is_set():
        counts.load.append(os.getloadavg()[0])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 10.0)


# --- the database ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def database(args: argparse.Namespace, workdir: Path) -> AsyncIterator[str]:
    """The run's database URL: a SQLite file in `workdir` by default; on a PostgreSQL server
    a fresh database, dropped afterwards (unless --reuse-database)."""
    if args.database_url is None:
        yield f"sqlite+aiosqlite:///{workdir / 'soak.sqlite3'}"
        return
    url = make_url(args.database_url)
    if not url.drivername.startswith("postgresql") or args.reuse_database:
        yield args.database_url
        return
    name = f"soak_{uuid.uuid4().hex[:12]}"
    admin = {
        "host": url.host,
        "port": url.port,
        "user": url.username,
        "password": url.password,
        "database": url.database or "postgres",
    }
    connection = await asyncpg.connect(**admin)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        connection = await asyncpg.connect(**admin)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()


async def rows(engine: AsyncEngine, sql: str) -> list[Any]:
    async with engine.connect() as connection:
        return list(await connection.execute(text(sql)))


GAMES_SQL = """
SELECT id, chat_id, message_id, second_chat_id, second_message_id, board, status, version,
       shown_version, x_kind, o_kind, x_player_id, o_player_id, x_rating_change,
       o_rating_change, assisted, size
FROM games ORDER BY id
"""


# --- the checks -----------------------------------------------------------------------------


def board_shown(fake: FakeTelegram, message: StoredMessage, game: Any) -> str | None:
    """Why the message does not show the stored game, or None if it does."""
    data = buttons(fake, message)
    cells = shown_cells(fake, message)
    ply = sum(1 for c in game.board if c != "_")
    resign = any(d.startswith(f"r:{game.id}:") for d in data)
    join = f"j:{game.id}" in data
    if game.status == "open":
        return None if join else "no Join button"
    if game.status == "active":
        if cells != game.board:
            return f"shows {cells}"
        if cell_data(fake, message, 0, prefix="") != f"m:{game.id}:{ply}:0":
            return f"cells carry {cell_data(fake, message, 0, prefix='')}, ply is {ply}"
        return None if resign else "no Resign button"
    if resign or join:
        return "still playable"
    if cells is not None and cells != game.board:
        return f"shows {cells}"
    return None


def check_boards(fake: FakeTelegram, games: dict[int, Any], found: Findings) -> None:
    """Every message that carries a game's buttons against the stored game."""
    for key, message in fake.messages.items():
        if message.deleted:
            continue
        ids = {int(m.group(2)) for d in buttons(fake, message) if (m := GAME_BUTTON_RE.match(d))}
        for game_id in ids:
            game = games.get(game_id)
            if game is None:
                continue
            found.boards_checked += 1
            named = {(game.chat_id, game.message_id), (game.second_chat_id, game.second_message_id)}
            orphan = key not in named
            found.orphan_boards += orphan
            why = board_shown(fake, message, game)
            if why is not None:
                found.boards_behind += 1
                found.boards_behind_live += game.status in LIVE
                where = "an unattached message" if orphan else "its board"
                found.example(
                    "boards behind",
                    f"game {game.id} ({game.status}, v{game.version}, shown_version "
                    f"{game.shown_version}): stored {game.board}; {where} {key} {why}",
                )
    for game in games.values():
        if game.status in LIVE and game.message_id is None:
            found.live_unposted += 1
            found.example("live, never posted", f"game {game.id} ({game.status})")
        if game.shown_version < game.version:
            found.versions_behind += 1
            found.example(
                "shown_version < version",
                f"game {game.id} ({game.status}): version {game.version}, shown "
                f"{game.shown_version}",
            )


def check_moves(games: dict[int, Any], moves: list[Any], found: Findings) -> None:
    """Per game: plies 1..n, marks in turn, each by its side's player, on free cells, and
    the stored board is what they make."""
    by_game: dict[int, list[Any]] = defaultdict(list)
    for move in moves:
        by_game[move.game_id].append(move)
    for game in games.values():
        played = sorted(by_game.get(game.id, []), key=lambda m: m.ply)
        problem = None
        if [m.ply for m in played] != list(range(1, len(played) + 1)):
            problem = f"plies {[m.ply for m in played]}"
        board = Board.empty(game.size)
        for move in played if problem is None else ():
            mark = "X" if move.ply % 2 else "O"
            side = game.x_player_id if mark == "X" else game.o_player_id
            person = (game.x_kind if mark == "X" else game.o_kind) == "user"
            if move.mark != mark or move.player_id != (side if person else None):
                problem = f"ply {move.ply}: {move.mark} by {move.player_id}"
            elif move.cell not in board.free_cells():
                problem = f"ply {move.ply}: cell {move.cell} taken"
            if problem:
                break
            board = play(board, move.cell)
        if problem is None and format_cells(board) != game.board:
            problem = f"moves make {format_cells(board)}, stored {game.board}"
        if problem is not None:
            found.bad_move_orders += 1
            found.example("move order", f"game {game.id}: {problem}")


def check_taps(fake: FakeTelegram, moves: list[Any], found: Findings) -> None:
    """Every tap on a cell against the moves stored: one answered as played has its move; a
    person's move was asked for by a tap of theirs that was not refused."""
    stored = {(m.game_id, m.ply): m for m in moves}
    busy = en.POPUP_GAME_BUSY
    asked: set[tuple[int, int]] = set()
    told_played: Counter[tuple[int, int]] = Counter()
    refused: set[tuple[int, int]] = set()
    for query_id, query in fake.callback_queries.items():
        match = CELL_RE.fullmatch(str(query.get("data")))
        if match is None:
            continue
        game_id, ply, cell = map(int, match.groups())
        found.taps_cell += 1
        move = stored.get((game_id, ply + 1))
        user_id = query["from"]["id"]
        this_tap = move is not None and move.cell == cell and move.player_id == user_id
        answer = fake.callback_answers.get(query_id)
        said = None if answer is None else answer.get("text") or ""
        if said is None:
            found.taps_unanswered += 1
        elif said == "":
            found.taps_played += 1
            told_played[(game_id, ply + 1)] += 1
            if not this_tap:
                found.lost_moves += 1
                found.example(
                    "lost moves",
                    f"tap {query_id} by {user_id} on game {game_id} cell {cell} at ply {ply}"
                    f" answered played; stored ply {ply + 1}: {move}",
                )
        elif said == busy:
            found.taps_busy += 1
        else:
            found.taps_refused[said] += 1
        if this_tap:
            asked.add((game_id, ply + 1))
            if said not in (None, "", busy):
                refused.add((game_id, ply + 1))
    for key, move in stored.items():
        if move.player_id is None:
            continue
        found.human_moves += 1
        if key not in asked:
            found.moves_without_tap += 1
            found.example("moves without a tap", f"game {key[0]} ply {key[1]}: {move}")
        elif key in refused and told_played[key] == 0:
            found.moves_told_refused += 1
            found.example("moves told refused", f"game {key[0]} ply {key[1]}: {move}")
    for key, times in told_played.items():
        if times > 1:
            found.told_played_twice += 1
            found.example("told played twice", f"game {key[0]} ply {key[1]}: {times} taps")


def kind_of(game: Any) -> str:
    if game.second_chat_id is not None:
        return "strangers"
    if "user" not in (game.x_kind, game.o_kind) or game.x_kind != game.o_kind:
        return "vs AI"
    return "group" if (game.chat_id or 0) < 0 else "one phone"


def pool_of(game: Any) -> str:
    size = "3x3" if game.size == 3 else "big"
    return size if game.x_kind == game.o_kind == "user" else f"ai:{size}"


def check_ratings(
    games: dict[int, Any], ratings: list[Any], ply_of: dict[int, int], found: Findings
) -> None:
    """Per player and pool: rated games counted in `ratings` against rated games played."""
    expected: Counter[tuple[int, str]] = Counter()
    for game in games.values():
        rated = False
        for player, change in (
            (game.x_player_id, game.x_rating_change),
            (game.o_player_id, game.o_rating_change),
        ):
            if change is not None and player is not None:
                expected[(player, pool_of(game))] += 1
                rated = True
        found.rated_games += rated
        people = [k for k in (game.x_kind, game.o_kind) if k == "user"]
        strangers = game.second_chat_id is not None
        should = game.status == "finished" and ply_of.get(game.id, 0) > 0 and not game.assisted
        if should and not rated and (strangers or len(people) == 1):
            found.rated_missing += 1
            found.example("rated missing", f"game {game.id} ({game.x_kind}/{game.o_kind})")
    actual = {(r.player_id, r.pool): r.games for r in ratings}
    for key in set(expected) | set(actual):
        have, want = actual.get(key, 0), expected.get(key, 0)
        if have != want:
            found.rating_rows_off += 1
            found.rated_twice += max(0, have - want)
            found.example("ratings", f"player {key[0]} pool {key[1]}: {have} counted, {want} games")


async def census(engine: AsyncEngine, fake: FakeTelegram) -> Findings:
    found = Findings()
    games = {g.id: g for g in await rows(engine, GAMES_SQL)}
    moves = await rows(engine, "SELECT game_id, ply, cell, mark, player_id FROM moves")
    ratings = await rows(engine, "SELECT player_id, pool, games FROM ratings")
    found.games, found.moves = len(games), len(moves)
    found.by_status = Counter(g.status for g in games.values())
    found.by_kind = Counter(kind_of(g) for g in games.values())
    found.inbox_left = (await rows(engine, "SELECT count(*) FROM inbox_updates"))[0][0]
    found.handled_updates = (await rows(engine, "SELECT count(*) FROM handled_updates"))[0][0]
    ply_of: Counter[int] = Counter(m.game_id for m in moves)
    check_boards(fake, games, found)
    check_moves(games, moves, found)
    check_taps(fake, moves, found)
    check_ratings(games, ratings, ply_of, found)
    return found


async def boards_behind(engine: AsyncEngine, fake: FakeTelegram) -> int:
    found = Findings()
    games = {g.id: g for g in await rows(engine, GAMES_SQL)}
    check_boards(fake, games, found)
    return found.boards_behind + found.versions_behind


async def settle(engine: AsyncEngine, fake: FakeTelegram, args: argparse.Namespace) -> float:
    """At least past a late edit's landing and a doubtful board's redraw, then until no board
    is behind twice in a row (at most --settle seconds); the seconds taken."""
    began = time.monotonic()
    least = max(3 * args.catch_up, SLOW, BOARD_DOUBT) + 2
    clean = 0
    while time.monotonic() - began < args.settle:
        await asyncio.sleep(2.0)
        clean = clean + 1 if await boards_behind(engine, fake) == 0 else 0
        if clean >= 2 and time.monotonic() - began >= least:
            break
    return time.monotonic() - began


# --- the report -----------------------------------------------------------------------------


def commit() -> str:
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        return subprocess.run(
            ["git", "log", "-1", "--format=%h %s"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()[:80]
    return "?"


def log_errors(slots: list[Slot]) -> tuple[int, int, list[str]]:
    """ERROR lines and tracebacks in every process's output; a few distinct ERROR lines."""
    errors = tracebacks = 0
    seen: dict[str, None] = {}
    for slot in slots:
        for process in slot.history:
            for line in process.output.splitlines():
                if " ERROR " in line or " CRITICAL " in line:
                    errors += 1
                    seen.setdefault(re.sub(r"^\S+ \S+ ", "", line)[:160], None)
                tracebacks += line.startswith("Traceback")
    return errors, tracebacks, list(seen)[:5]


def since_start(counts: Counts, moment: float) -> float:
    """Seconds from the newest process start before `moment` (monotonic) to it."""
    return min((moment - t for t in counts.started_at if t <= moment), default=float("inf"))


def group_pace(fake: FakeTelegram, refused: list[Any]) -> str:
    """How many messages the fake took in the refused calls' chats in the minute before each
    refusal (Telegram: 20 a minute in a group), at most."""
    chats = {c.params.get("chat_id") for c in refused}
    taken = [
        c
        for c in fake.calls
        if c.ok and c.method.startswith(("send", "edit")) and c.params.get("chat_id") in chats
    ]
    most = max(sum(1 for t in taken if r.started - 60 <= t.started < r.started) for r in refused)
    return f"the fake took up to {most} messages there in the minute before one"


def report(
    args: argparse.Namespace,
    database_url: str,
    counts: Counts,
    fake: FakeTelegram,
    found: Findings,
    settled: float,
    slots: list[Slot],
) -> None:
    injected_429 = [c for c in fake.too_many_requests if INJECTED in (c.description or "")]
    own_429 = [c for c in fake.too_many_requests if INJECTED not in (c.description or "")]
    applied = Counter(
        {
            "429": len(injected_429),
            "502": sum(1 for c in fake.calls if c.error_code == 502),
            "slow answer": len(fake.lost_answers),
        }
    )
    errors, tracebacks, samples = log_errors(slots)
    engine_name = make_url(database_url).get_backend_name()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    during = counts.load or [0.0]
    print(f"code:              {ROOT} at {commit()}")
    print(
        f"setup:             {args.minutes:g} min on {engine_name}, {args.instances} "
        f"instance(s), seed {args.seed}, a kill every {args.kill_every:g} s, a fault every "
        f"{args.fault_every:g} s on average, {args.duplicates:.0%} delivered to both"
    )
    print(
        f"people:            {args.ai_chats} vs the AI, {args.phones} one-phone, "
        f"{args.groups} group(s) of 2, {args.strangers} strangers; a step every "
        f"{args.pause_min:g}-{args.pause_max:g} s"
    )
    print(
        f"taps:              {counts.taps} ({found.taps_cell} on cells: {found.taps_played} "
        f"played, {sum(found.taps_refused.values())} refused, {found.taps_busy} busy, "
        f"{found.taps_unanswered} unanswered), {counts.joins} joins, {counts.commands} "
        f"commands, {counts.gave_up} gave up"
    )
    refusals = ", ".join(f"{n} {text[:28]!r}" for text, n in found.taps_refused.most_common())
    print(f"  refusals:        {refusals or '-'}")
    print(f"moves stored:      {found.moves} ({found.human_moves} by people)")
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(found.by_status.items()))
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(found.by_kind.items()))
    print(f"games:             {found.games} ({statuses}); {kinds}; rated {found.rated_games}")
    print(
        f"deliveries:        {counts.deliveries} updates, {counts.duplicated} to both, "
        f"{counts.redelivered} sent again; POSTs {dict(sorted(counts.posts.items()))}"
    )
    print(
        f"kills:             {counts.kills}; ready after "
        f"{', '.join(f'{s:.1f}' for s in counts.ready_s)} s"
    )
    faults = ", ".join(f"{n} {k}" for k, n in sorted(counts.faults.items()))
    print(f"faults injected:   {sum(counts.faults.values())}: {faults}")
    print(f"  carried out:     {dict(applied)} (late edits and held edits: as injected)")
    print(f"fake's own 429s:   {len(own_429)} (its flood limits: the bot went too fast)")
    if own_429:
        chats = Counter(f"{c.method} chat {c.params.get('chat_id')}" for c in own_429)
        print(f"  where:           {dict(chats)}")
        since = [since_start(counts, c.started) for c in own_429]
        print(
            f"  after a start:   {sum(s < 60 for s in since)} of them within 60 s of an "
            f"instance's (re)start; {group_pace(fake, own_429)}"
        )
    print(f"settled:           {settled:.1f} s after the people stopped")
    print("CHECKS")
    print(
        f"boards behind:     {found.boards_behind} of {found.boards_checked} messages with a "
        f"game's buttons ({found.boards_behind_live} of live games); {found.orphan_boards} "
        f"such messages the game does not name; {found.live_unposted} live games never posted"
    )
    print(f"shown < version:   {found.versions_behind} games")
    print(f"move order:        {found.bad_move_orders} games with gaps, repeats or a wrong board")
    print(f"lost moves:        {found.lost_moves} taps answered as played without their move")
    print(
        f"duplicated moves:  {found.moves_without_tap} moves no tap asked for, "
        f"{found.moves_told_refused} stored but their tap refused, {found.told_played_twice} "
        "told played to two taps"
    )
    print(
        f"rated twice:       {found.rated_twice} extra ratings ({found.rating_rows_off} "
        f"player/pool counts off); {found.rated_missing} rated games missing their rating"
    )
    print(
        f"inbox left:        {found.inbox_left} updates; {found.handled_updates} update ids claimed"
    )
    print(f"instance logs:     {errors} ERROR lines, {tracebacks} tracebacks")
    for line in samples:
        print(f"  {line}")
    for kind, lines in found.examples.items():
        print(f"examples, {kind}:")
        for line in lines:
            print(f"  {line}")
    print(
        f"load average:      {load} at the end; 1-min during the run: mean "
        f"{sum(during) / len(during):.2f}, max {max(during):.2f}"
    )


# --- the run --------------------------------------------------------------------------------


async def soak(args: argparse.Namespace, workdir: Path) -> None:
    counts = Counts()
    async with database(args, workdir) as database_url, FakeTelegram(time_scale=1.0) as fake:
        extra = {
            "BOARD_CATCH_UP_SECONDS": str(args.catch_up),
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
            ),
        }
        names = "ab"[: args.instances]
        slots = [Slot(name, fake, workdir, database_url, extra) for name in names]
        engine = create_async_engine(database_url)
        rng = random.Random(args.seed)
        try:
            await asyncio.gather(*(slot.start(counts) for slot in slots))
            async with Delivery(slots, rng, args.duplicates, counts) as delivery:
                people = People(fake, delivery, args, counts)
                stop = asyncio.Event()
                chores = [
                    asyncio.create_task(inject_faults(fake, people.chat_ids, args, counts, stop)),
                    asyncio.create_task(kill_in_turn(slots, args, counts, stop)),
                    asyncio.create_task(database_away(database_url, args, counts, stop)),
                    asyncio.create_task(sample_load(counts, stop)),
                ]
                players = [asyncio.create_task(people.run(p, stop)) for p in people.people]
                await asyncio.sleep(args.minutes * 60)
                stop.set()
                await asyncio.gather(*players, *chores)
                fake.clear_failures()
                fake.release_held()
                if not await delivery.drained(60.0):
                    print(f"warning: {len(delivery.tasks)} updates never got a 200")
                settled = await settle(engine, fake, args)
                found = await census(engine, fake)
        finally:
            await engine.dispose()
            codes = [await slot.stop() for slot in slots]
            for slot in slots:
                for process in slot.history:
                    await process.kill()
        print(f"exit codes:        {codes} (SIGTERM at the end)")
        report(args, database_url, counts, fake, found, settled, slots)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # The fake logs every call it refuses (a WARNING): here thousands, on purpose.
    fake_log.setLevel(logging.ERROR)
    if args.keep:
        workdir = Path(tempfile.mkdtemp(prefix="bench-soak-"))
        print(f"logs in {workdir}")
        asyncio.run(soak(args, workdir))
        return
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        asyncio.run(soak(args, Path(tmp)))


if __name__ == "__main__":
    main()
