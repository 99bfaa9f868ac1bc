"""Journeys: random sequences of what people do, across every feature at once, against the real
bot and the strict fake Bot API, with the invariants checked after every step.

Features are each tested alone elsewhere; here they are played into each other the way people
do: a new game over an unfinished one of another kind, `/forget` or `/language` mid-game, an
inline game beside a chat game, a group challenge while an AI match runs, stale and double
taps, taps by people who are not playing, typed moves good and bad. After every step:

- nothing was logged at ERROR, and nobody read "something went wrong";
- every tap was answered exactly once, and Telegram refused no call of the bot's, not even an
  edit as "not modified";
- every stored game's board is its stored moves replayed;
- every live game's board message shows the stored game;
- no two live games share a board message;
- every board of a game that ended in this journey shows it as stored (how it ended, and a
  rated game's rating change), but a board in a chat whose person blocks the bot now (Telegram
  refuses to edit it): no board says whose turn it is in a game that is over;
- a stranger left alone by the other (resigned, /stop, walked away, blocked, /forget) was told
  so in a message of its own, in their language;
- every game is rated at most once: each person's games counted in a rating pool are the
  games of theirs there with a rating change;
- no game was counted lost for a new one (REPLACED) more often than its player said yes.

Besides commands, taps, typed moves and inline posts, people here answer "Resign and start?"
either way (`replace`), block the bot in their private chat and come back later by writing to
it again (`block`), look for a stranger together (`pair_up`), and walk away: time passes until
the turn clock nudges, then flags, every turn left waiting (`walk_away`, the turn clock
ticked at a time two turns ahead, as the running clock would).

hypothesis drives it (`RuleBasedStateMachine`), so a broken invariant is reported as the
shortest sequence of steps that breaks it. `JOURNEYS` (examples, in all) and `JOURNEY_STEPS`
(steps per example, at most) set how long it walks: CI's defaults, or more for a soak, e.g.
`JOURNEYS=300 JOURNEY_STEPS=60 .venv/bin/python -m pytest tests/e2e/test_journeys.py`.

The journeys are walked by `JOURNEY_SHARDS` tests, each with its share of the `JOURNEYS`, so
that a parallel run spreads them over its processes (in one test they took 100-170 s, and the
run could not end before them). Unseeded (a local run), each shard draws journeys of its own at
random; derandomized (CI), hypothesis would draw the same ones in every shard, so each shard has
a seed of its own.

One bot and one database serve every example of a shard (starting them per example would cost
more than the steps); each example has people, chats and a group of its own, so what one
example did is invisible to the next.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.chat.boards import second_view
from bot.games.db.engine import create_engine
from bot.games.db.models import utcnow
from bot.games.model import FORFEITS, LIVE, EndReason, GameStatus, GameView
from bot.games.ratings.rules import ai_pool, pool_of
from bot.locales.texts import Texts, available_languages, texts_for
from bot.telegram.flood_gate import FloodGate
from bot.views.render import player_name, render_game
from core.board import O, X, other
from core.positions import is_ultimate
from tests.support.bot_runner import BotRunner
from tests.support.fake_telegram import BLOCKED, FakeTelegram, StoredMessage
from tests.support.time_scale import TELEGRAM_CLOCK

JOURNEYS = int(os.environ.get("JOURNEYS", "20"))
JOURNEY_STEPS = int(os.environ.get("JOURNEY_STEPS", "30"))
#: Tests the journeys are split among (each walks JOURNEYS / JOURNEY_SHARDS of them).
JOURNEY_SHARDS = int(os.environ.get("JOURNEY_SHARDS", "4"))
SHRINK = os.environ.get("JOURNEY_SHRINK", "1") != "0"
#: How long one step may take to settle (a group's flood limit paces the bot: 3 s a message).
STEP_TIMEOUT = 120.0
#: How long Telegram waits for the answer to a tap.
ANSWER_DEADLINE = 15.0

COMMANDS = [
    "/start",
    "/start hard",
    "/start easy",
    "/start medium user",
    "/start hard_user",
    "/start user user",
    "/start user hard",
    "/start easy hard",
    "/start easy easy 4",
    "/start hard 5",
    "/start user user 6",
    "/start ultimate",
    "/start ultimate medium",
    "/start ultimate user user",
    "/start ultimate easy medium",
    "/start user user user",
    "/start user user user user",
    "/start bogus",
    "/start hard 9",
    "/start@tictactoe_test_bot hard",
    "/help",
    "/stats",
    "/top",
    "/language",
    "/forget",
    "/stop",
    "/exit",
    "/hint",
    "/undo",
    "/card",
    "/replay",
    "/challenge",
    "/challenge 5",
    "/challenge bo3",
    "/start user user bo3",
    "/tournament",
    "/play",
    "/play",
    "/play 6",
    "/play ultimate",
    "/play 3+2",
    "/play bo3",
    "/rating",
]
TYPED = ["1 1", "2 2", "3 1", "1 3", "5", "9", "0 0", "4 4", "a b", "10", "r5 c3", "5 3", "hello"]
FORGED = [
    "m:1:0:0",
    "m:999999:0:4",
    "r:1:0",
    "j:1",
    "fy:1",
    "lang:xx",
    "ia:1:hard:0",
    "zz",
    "m:a:b:c",
]
INLINE_QUERIES = ["", "5", "6 4", "ultimate", "nonsense"]
LANGUAGES = ["en", "ru", "fa", "de", None]
NAMES = ["Ann", "Boris", "Chen", "Dara"]
#: New games over one that may be underway (`replace`): each asks first if it is.
REPLACING = [
    "/start hard",
    "/start easy",
    "/start medium user",
    "/start ultimate easy",
    "/start 4",
    "/play",
    "/play 3+2",
]
#: "Resign and start" ("Resign and look", before /play), in every language, and the language
#: it is in.
REPLACE_LABELS = {
    label: code
    for code in available_languages()
    for label in (texts_for(code).BUTTON_REPLACE, texts_for(code).BUTTON_REPLACE_SEARCH)
}
KEEP_LABELS = frozenset(texts_for(code).BUTTON_KEEP_PLAYING for code in available_languages())

#: Every language's way of saying that something broke.
APOLOGIES = frozenset(
    getattr(texts_for(code), name)
    for code in available_languages()
    for name in ("SORRY_ERROR", "POPUP_ERROR")
)


class Loop:
    """An event loop on a thread of its own: the bot and the fake live there, while
    hypothesis (which is synchronous) drives the steps from the test's thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, work: Coroutine[Any, Any, Any], timeout: float = STEP_TIMEOUT) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class ErrorRecords(logging.Handler):
    """Every record at ERROR or above, from any logger."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class World:
    loop: Loop
    telegram: FakeTelegram
    bot: BotRunner
    engine: AsyncEngine
    errors: ErrorRecords
    examples: int = 0
    steps: Counter[str] = field(default_factory=Counter)
    #: Everyone who ever blocked the bot, in any example (the board catch-up may still try a
    #: board of an earlier example in such a chat).
    ever_blocked: set[int] = field(default_factory=set)


@pytest.fixture
def world(database_url: str) -> Iterator[World]:
    loop = Loop()
    errors = ErrorRecords()
    logging.getLogger().addHandler(errors)

    async def open_world() -> World:
        telegram = FakeTelegram()
        await telegram.start()
        # The fake enforces Telegram's flood limits, and the bot paces itself under them.
        assert telegram.flood_limits_on
        bot = BotRunner(telegram, database_url, ai_pause=0.02, ai_time_budget_seconds=0.05)
        await bot.start()
        return World(loop, telegram, bot, create_engine(database_url), errors)

    world = loop.run(open_world())
    try:
        yield world
    finally:

        async def close_world() -> None:
            await world.bot.stop()
            await world.engine.dispose()
            await world.telegram.stop()

        loop.run(close_world())
        loop.close()
        logging.getLogger().removeHandler(errors)


class Journey(RuleBasedStateMachine):
    """What two to four people do with the bot: each in their private chat, together in one
    group, and through inline mode anywhere."""

    world: World

    def __init__(self) -> None:
        super().__init__()
        world = self.world
        world.examples += 1
        base = 1_000_000 * world.examples
        self.tg = world.telegram
        self.people: list[dict[str, Any]] = []
        self.group = FakeTelegram.group_chat(-base, f"Journey {world.examples}")
        self.members: list[dict[str, Any]] = []
        self.inline: list[StoredMessage] = []
        self.first_call = len(self.tg.calls)
        self.first_query = set(self.tg.callback_queries)
        self.first_error = len(world.errors.records)
        self.base = base
        #: When each of this example's callback queries was sent, by query id.
        self.tapped_at: dict[str, float] = {}
        #: Who blocks the bot now, and who ever did in this example.
        self.blocked: set[int] = set()
        #: Taps on "Resign and start", by who tapped.
        self.said_yes: Counter[int] = Counter()
        #: The games of this example are those after this id.
        self.games_before = world.loop.run(self._last_game_id())

    # ------------------------------------------------------------------ set-up

    @initialize(
        languages=st.lists(st.sampled_from(LANGUAGES), min_size=2, max_size=4),
        in_group=st.integers(2, 4),
    )
    def meet(self, languages: list[str | None], in_group: int) -> None:
        for i, language in enumerate(languages):
            user = FakeTelegram.user(
                self.base + i + 1, NAMES[i], language_code=language, username=f"j{self.base + i}"
            )
            self.people.append(user)
        self.members = self.people[: min(in_group, len(self.people))]
        self.tg.add_chat(self.group)

    # ------------------------------------------------------------------ what people do

    def person(self, who: int) -> dict[str, Any]:
        return self.people[who % len(self.people)]

    def chat_of(self, user: dict[str, Any], in_group: bool) -> dict[str, Any] | None:
        if in_group and user in self.members:
            return self.group
        return None  # the user's private chat

    @rule(who=st.integers(0, 3), in_group=st.booleans(), command=st.sampled_from(COMMANDS))
    def send_command(self, who: int, in_group: bool, command: str) -> None:
        user = self.person(who)
        self.do("command", self._send(user, command, self.chat_of(user, in_group)))

    @rule(
        who=st.integers(0, 3),
        in_group=st.booleans(),
        typed=st.sampled_from(TYPED),
        pick=st.integers(0, 99),
    )
    def type_move(self, who: int, in_group: bool, typed: str, pick: int) -> None:
        user = self.person(who)
        chat = self.chat_of(user, in_group)
        reply_to = None
        if chat is not None:
            boards = [m for m in self.tg.bot_messages(chat["id"]) if m.reply_markup]
            if not boards:
                return
            reply_to = boards[-1 - pick % len(boards)]
        self.do("typed move", self._send(user, typed, chat, reply_to))

    @rule(who=st.integers(0, 3), pick=st.integers(0, 10_000))
    def tap_fresh(self, who: int, pick: int) -> None:
        """A button on one of the newest messages the person can see (the usual tap)."""
        self._pick_and_tap(who, pick, recent=True, double=False)

    @rule(who=st.integers(0, 3), pick=st.integers(0, 10_000), double=st.booleans())
    def tap_any(self, who: int, pick: int, double: bool) -> None:
        """A button on any message the person can see, stale ones too, maybe twice at once."""
        self._pick_and_tap(who, pick, recent=False, double=double)

    def _pick_and_tap(self, who: int, pick: int, *, recent: bool, double: bool) -> None:
        user = self.person(who)
        messages = self.visible_keyboards(user)
        if recent:
            messages = messages[-2:]
        if not messages:
            return
        message = messages[pick % len(messages)]
        buttons = [d for row in self.tg.keyboard(message) for _, d in row if d is not None]
        if not buttons:
            return
        data = buttons[(pick // len(messages)) % len(buttons)]
        self.do(
            "double tap" if double else "tap", self._tap(user, message, data, 2 if double else 1)
        )

    @rule(
        who=st.integers(0, 3),
        pick=st.integers(0, 99),
        forged=st.sampled_from(FORGED) | st.text(min_size=1, max_size=20),
    )
    def forged_tap(self, who: int, pick: int, forged: str) -> None:
        user = self.person(who)
        messages = self.visible_keyboards(user)
        if not messages or len(forged.encode()) > 64:
            return
        self.do("forged tap", self._tap(user, messages[pick % len(messages)], forged, 1))

    @rule(
        moves=st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.sampled_from(COMMANDS)),
            min_size=2,
            max_size=4,
        )
    )
    def busy_group(self, moves: list[tuple[int, int, str]]) -> None:
        """Several members at once, before the bot has answered any of them: taps on the
        group's newest boards and commands, as in a lively group (and under its flood limit)."""
        self.do("busy group", self._busy_group(moves))

    async def _busy_group(self, moves: list[tuple[int, int, str]]) -> None:
        for who, pick, command in moves:
            user = self.members[who % len(self.members)]
            boards = [m for m in self.tg.bot_messages(self.group["id"]) if m.reply_markup][-3:]
            buttons = [(m, d) for m in boards for row in self.tg.keyboard(m) for _, d in row if d]
            if buttons and pick % 3:
                message, data = buttons[pick % len(buttons)]
                await self._tap(user, message, data, 1)
            else:
                await self._send(user, command, self.group)

    @rule(who=st.integers(0, 3), query=st.sampled_from(INLINE_QUERIES), pick=st.integers(0, 99))
    def post_inline(self, who: int, query: str, pick: int) -> None:
        """`@bot …` in some chat, and one of the results posted there."""
        self.do("inline", self._inline(self.person(who), query, pick))

    @rule(who=st.integers(0, 3), command=st.sampled_from(REPLACING), yes=st.booleans())
    def replace(self, who: int, command: str, yes: bool) -> None:
        """A new game in the private chat; asked "Resign and start?", the answer."""
        self.do("replace", self._replace(self.person(who), command, yes))

    @rule(who=st.integers(0, 3))
    def block(self, who: int) -> None:
        """The person blocks the bot in their private chat (they come back by writing to it, or
        tapping there, in a later step)."""
        user = self.person(who)
        if user["id"] in self.blocked:
            return
        self.do("block", self._block(user))

    @rule(a=st.integers(0, 3), b=st.integers(0, 3))
    def pair_up(self, a: int, b: int) -> None:
        """Two people look for a stranger at about the same time: they are paired."""
        first, second = self.person(a), self.person(b)
        if first is second:
            return
        self.do("pair up", self._pair_up(first, second))

    @rule(who=st.integers(0, 3), how=st.sampled_from(["/stop", "cancel", "/start easy"]))
    def search_and_cancel(self, who: int, how: str) -> None:
        """Someone looks for a stranger, then thinks better of it (/stop, the waiting message's
        Cancel, or a game against the AI): no longer looking, whatever came meanwhile."""
        user = self.person(who)
        if user["id"] in self.blocked:
            return
        self.do("search and cancel", self._search_and_cancel(user, how))

    @rule()
    def wait_out(self) -> None:
        """Everyone looking for a stranger waits past QUEUE_WAIT_SECONDS: they leave the queue,
        and their waiting message says so (no Cancel left on it)."""
        self.do("wait out", self._wait_out())

    @rule(ticks=st.integers(1, 2))
    def walk_away(self, ticks: int) -> None:
        """Nobody moves for two turns' time: the turn clock nudges every turn left waiting
        (one tick), then flags those nudged (a second tick); challenges and rematch offers
        lapse."""
        self.do("walk away", self._walk_away(ticks))

    # ------------------------------------------------------------------ the steps, on the loop

    def do(self, name: str, work: Coroutine[Any, Any, None]) -> None:
        self.world.steps[name] += 1
        self.world.loop.run(self._then_settle(work))

    async def _then_settle(self, work: Coroutine[Any, Any, None]) -> None:
        await work
        await self._settle()

    async def _settle(self) -> None:
        """Until every update is handled and every AI turn it started is played."""
        await self.world.bot.quiesce(timeout=STEP_TIMEOUT)

    async def _send(
        self, user: dict[str, Any], text_: str, chat: dict[str, Any] | None, reply_to: Any = None
    ) -> None:
        if chat is None:
            await self._come_back(user)
        self.tg.send_text(user, text_, chat=chat, reply_to=reply_to)

    async def _tap(
        self, user: dict[str, Any], message: StoredMessage, data: str, times: int
    ) -> None:
        if message.chat_id == user["id"]:
            await self._come_back(user)
        label = next((t for row in self.tg.keyboard(message) for t, d in row if d == data), None)
        if label in REPLACE_LABELS:
            self.said_yes[user["id"]] += times
        for _ in range(times):
            self.tapped_at[self.tg.tap(user, message, data)] = time.monotonic()

    async def _come_back(self, user: dict[str, Any]) -> None:
        """A person who blocked the bot unblocks it before writing or tapping in its chat
        (Telegram tells the bot: `my_chat_member`, kicked → member)."""
        if user["id"] not in self.blocked:
            return
        self.blocked.discard(user["id"])
        self.tg.membership_changed(FakeTelegram.private_chat(user), user, "kicked", "member")
        await self.world.bot.settle(timeout=STEP_TIMEOUT)

    async def _block(self, user: dict[str, Any]) -> None:
        self.blocked.add(user["id"])
        self.world.ever_blocked.add(user["id"])
        self.tg.membership_changed(FakeTelegram.private_chat(user), user, "member", "kicked")
        await self._settle()
        # Nothing of theirs goes on in the chat the bot can no longer write to, and they are
        # no longer looking for a stranger (the one paired with them would wait for nobody).
        async with self.world.engine.connect() as db:
            live = (
                await db.execute(
                    text(
                        "SELECT id FROM games WHERE status IN ('open', 'active') "
                        "AND (chat_id = :uid OR second_chat_id = :uid)"
                    ),
                    {"uid": user["id"]},
                )
            ).all()
            queued = await db.scalar(
                text("SELECT count(*) FROM match_queue WHERE player_id = :uid"),
                {"uid": user["id"]},
            )
        assert not live, ("live games in a blocked chat", live)
        assert not queued, "a person who blocked the bot is still looking for an opponent"

    async def _pair_up(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        await self._send(first, "/play", None)
        await self._settle()
        await self._send(second, "/play", None)

    async def _search_and_cancel(self, user: dict[str, Any], how: str) -> None:
        await self._send(user, "/play", None)
        await self._settle()
        if how == "cancel":
            waiting = [m for m in self.tg.bot_messages(user["id"]) if _has_cancel(self.tg, m)]
            if waiting:
                await self._tap(user, waiting[-1], "qc", 1)
        else:
            await self._send(user, how, None)
        await self._settle()
        assert not await self._queued(user["id"]), ("still looking after", how)

    async def _wait_out(self) -> None:
        application = self.world.bot.application
        assert application is not None
        matchmaker = application.bot_data.running.matchmaker
        async with self.world.engine.connect() as db:
            looking = [
                uid for (uid,) in await db.execute(text("SELECT player_id FROM match_queue"))
            ]
        limit, matchmaker.wait_limit = matchmaker.wait_limit, timedelta(0)
        try:
            await matchmaker.round()
        finally:
            matchmaker.wait_limit = limit
        await self._settle()
        for uid in looking:
            assert not await self._queued(uid), "waited past the limit and still looking"
            left = [m for m in self.tg.bot_messages(uid) if _has_cancel(self.tg, m)]
            assert not left, ("a waiting message still offers Cancel", [m.text for m in left])

    async def _queued(self, user_id: int) -> bool:
        async with self.world.engine.connect() as db:
            count = await db.scalar(
                text("SELECT count(*) FROM match_queue WHERE player_id = :uid"), {"uid": user_id}
            )
        return bool(count)

    async def _walk_away(self, ticks: int) -> None:
        clock = self.world.bot.turn_clock
        turn = timedelta(seconds=self.world.bot.settings.turn_timeout_seconds)
        later = utcnow() + 2 * turn + timedelta(seconds=1)
        for _ in range(ticks):
            await clock.tick(later)

    async def _replace(self, user: dict[str, Any], command: str, yes: bool) -> None:
        await self._come_back(user)
        before = await self._live_in_private(user["id"])
        last = max((m.message_id or 0 for m in self.tg.bot_messages(user["id"])), default=0)
        await self._send(user, command, None)
        await self._settle()
        asked = [
            m
            for m in self.tg.bot_messages(user["id"])
            if (m.message_id or 0) > last
            and any(t in REPLACE_LABELS for row in self.tg.keyboard(m) for t, _ in row)
        ]
        after = {game.id: game for game in await self._games(list(before))}
        if not asked:
            # Nothing was underway: whatever the new game closed counts nowhere.
            for game in after.values():
                if game.status not in LIVE:
                    assert game.status == GameStatus.ABANDONED, (game.id, game.status)
            return
        # Asked: nothing ended before the answer.
        assert all(game.status in LIVE for game in after.values()), after
        (question,) = asked
        labels = {t: d for row in self.tg.keyboard(question) for t, d in row if d}
        label = next(t for t in labels if (t in REPLACE_LABELS) == yes)
        assert yes or label in KEEP_LABELS
        await self._tap(user, question, labels[label], 1)
        await self._settle()
        after = {game.id: game for game in await self._games(list(before))}
        if not yes:
            assert all(game.status in LIVE for game in after.values()), after
            return
        lost = [g for g in after.values() if g.status == GameStatus.FINISHED]
        assert len(lost) == 1 and lost[0].end_reason == EndReason.REPLACED, after
        (game,) = lost
        mark = game.mark_of(user["id"])
        assert mark is not None and game.result == other(mark), (game.id, game.result)
        # /rating counts it in its pool as often as it was rated there.
        pool = _pool(game)
        if game.is_rated and pool is not None:
            tr = texts_for(REPLACE_LABELS[label])
            await self._send(user, "/rating", None)
            await self._settle()
            rows = self.tg.last_bot_message(user["id"]).text.splitlines()
            counted = await self._rated_games(user["id"], pool)
            shown = tr.count("COUNT_GAMES", counted)
            assert any(shown in row for row in rows), (pool, shown, rows)

    async def _live_in_private(self, user_id: int) -> dict[int, str]:
        async with self.world.engine.connect() as db:
            rows = (
                await db.execute(
                    text(
                        "SELECT id, status FROM games WHERE chat_id = :uid "
                        "AND status IN ('open', 'active')"
                    ),
                    {"uid": user_id},
                )
            ).all()
        return {game_id: status for game_id, status in rows}

    async def _games(self, ids: list[int]) -> list[GameView]:
        application = self.world.bot.application
        assert application is not None
        store = application.bot_data.running.games.store
        found = [await store.get_game(game_id) for game_id in ids]
        return [game for game in found if game is not None]

    async def _last_game_id(self) -> int:
        async with self.world.engine.connect() as db:
            return int(await db.scalar(text("SELECT coalesce(max(id), 0) FROM games")) or 0)

    async def _rated_games(self, player_id: int, pool: str) -> int:
        async with self.world.engine.connect() as db:
            counted = await db.scalar(
                text("SELECT games FROM ratings WHERE player_id = :p AND pool = :pool"),
                {"p": player_id, "pool": pool},
            )
        return int(counted or 0)

    async def _inline(self, user: dict[str, Any], query: str, pick: int) -> None:
        query_id = self.tg.inline_query(user, query)
        await self.tg.wait_until(
            lambda: query_id in self.tg.inline_answers, what="an inline answer"
        )
        results = self.tg.inline_answers[query_id]["results"]
        chosen = results[pick % len(results)]
        content = chosen["input_message_content"]["message_text"]
        self.inline.append(self.tg.add_inline_message(content, chosen.get("reply_markup")))

    def visible_keyboards(self, user: dict[str, Any]) -> list[StoredMessage]:
        """The bot's messages with buttons that this person sees, oldest first."""
        chats = [user["id"], *([self.group["id"]] if user in self.members else [])]
        seen = [m for chat in chats for m in self.tg.bot_messages(chat)]
        seen.sort(key=lambda m: m.message_id or 0)
        return [m for m in [*seen, *self.inline] if m.reply_markup]

    # ------------------------------------------------------------------ invariants

    @invariant()
    def nothing_broke(self) -> None:
        errors = self.world.errors.records[self.first_error :]
        assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]
        calls = self.tg.calls[self.first_call :]
        # No edit the bot sends is one that changes nothing ("not modified", issue 51): it
        # knows what each message shows. A chat whose person blocked the bot refuses it, as
        # Telegram does.
        blocked = {str(user_id) for user_id in self.world.ever_blocked}
        refused = [
            c
            for c in calls
            if not c.ok
            and c.method != "getUpdates"
            and not (c.description == BLOCKED and str(c.params.get("chat_id")) in blocked)
        ]
        assert not refused, refused
        said = [
            c.params.get("text")
            for c in calls
            if c.method in ("sendMessage", "editMessageText", "answerCallbackQuery")
        ]
        assert not APOLOGIES.intersection(said), said
        answered = Counter(
            str(c.params.get("callback_query_id"))
            for c in calls
            if c.method == "answerCallbackQuery" and c.ok
        )
        asked = set(self.tg.callback_queries) - self.first_query
        # Telegram takes an answer for about 15 s; after that the button spun for nothing.
        late = {
            q: round(c.started - self.tapped_at[q], 1)
            for c in calls
            if c.method == "answerCallbackQuery"
            and (q := str(c.params.get("callback_query_id"))) in self.tapped_at
            and c.started - self.tapped_at[q] > ANSWER_DEADLINE
        }
        assert not late, f"taps answered late (seconds): {late}"
        assert {q: answered[q] for q in asked if answered[q] != 1} == {}
        self.world.loop.run(self._check_games())

    async def _check_games(self) -> None:
        async with self.world.engine.connect() as db:
            games = (
                await db.execute(
                    text(
                        "SELECT id, board, status, chat_id, message_id, inline_message_id "
                        "FROM games ORDER BY id"
                    )
                )
            ).all()
            moves = (await db.execute(text("SELECT game_id, ply, cell, mark FROM moves"))).all()
        played: dict[int, list[tuple[int, int, str]]] = {}
        for game_id, ply, cell, mark in moves:
            played.setdefault(game_id, []).append((ply, cell, mark))
        boards: Counter[tuple[Any, ...]] = Counter()
        ended: list[int] = []
        for game_id, board, status, chat_id, message_id, inline_id in games:
            replayed = ["_"] * len(board)
            for _ply, cell, mark in sorted(played.get(game_id, [])):
                assert replayed[cell] == "_", (game_id, "a cell played twice")
                replayed[cell] = mark
            assert "".join(replayed) == board, (game_id, board, sorted(played.get(game_id, [])))
            if status not in LIVE:
                if game_id > self.games_before:
                    ended.append(game_id)
                continue
            where = (inline_id,) if inline_id else (chat_id, message_id)
            if None in where:
                continue  # its board's posting got no answer: not known yet
            boards[where] += 1
            await self._check_board(game_id, where)
        shared = [where for where, count in boards.items() if count > 1]
        assert not shared, f"live games share a board message: {shared}"
        await self._check_endings(await self._caught_up(ended))

    async def _drained(self, chats: set[int | None]) -> None:
        """Until the bot's flood gate holds no call for these chats."""
        application = self.world.bot.application
        assert application is not None
        gate = application.bot.rate_limiter
        assert isinstance(gate, FloodGate)
        deadline = time.monotonic() + STEP_TIMEOUT
        await asyncio.sleep(0.05)  # a drawing that has rendered and not yet reached the gate
        while any(gate.waiting(chat) for chat in chats if chat is not None):
            assert time.monotonic() < deadline, "calls still queued in the flood gate"
            await asyncio.sleep(0.05)

    async def _caught_up(self, ids: list[int]) -> list[GameView]:
        """The games, after a round of the board catch-up if any of their boards is behind: a
        game that ended while its board was being posted (a challenge withdrawn in a busy
        group before its board went out) is drawn by that round, some seconds later."""
        application = self.world.bot.application
        assert application is not None
        catch_up = application.bot_data.running.board_catch_up
        await catch_up.flush()
        games = await self._games(ids)
        # (Also a board /forget left behind: it drops the name of whoever forgot.)
        if any(game.shown_version < game.version for game in games):
            self.world.steps["caught up"] += 1
            # A round as if an hour on: past the grace, counted from each game's last change.
            await catch_up.catch_up(utcnow() + timedelta(hours=1))
            # The chore's own drawing may wait for a busy group's pace in the flood gate,
            # where the fake does not see it yet: wait until those chats' queues are empty.
            await self._drained({g.chat_id for g in games if g.shown_version < g.version})
            await self._settle()
            await catch_up.flush()
            games = await self._games(ids)
        return games

    async def _check_endings(self, ended: list[GameView]) -> None:
        """The games of this journey that are over: their boards, who was told, ratings."""
        replaced: Counter[int] = Counter()
        rated: Counter[tuple[int, str]] = Counter()
        for game in ended:
            if game.inline_message_id is not None:
                await self._check_board(game.id, (game.inline_message_id,), over=True)
            elif game.chat_id is not None and game.message_id is not None:
                await self._check_board(game.id, (game.chat_id, game.message_id), over=True)
            if game.is_between_strangers and game.is_finished:
                self._check_winner_told(game)
            if game.end_reason == EndReason.REPLACED and game.is_finished and game.result:
                loser = game.player_id_of(other(game.result))
                if loser is not None:
                    replaced[loser] += 1
            pool = _pool(game)
            for mark, change in ((X, game.x_rating_change), (O, game.o_rating_change)):
                player_id = game.player_id_of(mark)
                if change is not None and player_id is not None and pool is not None:
                    rated[player_id, pool] += 1
        yes_more = {who: n for who, n in replaced.items() if n > self.said_yes[who]}
        assert not yes_more, f"counted lost for a new game without a yes: {yes_more}"
        # Rated at most once: a rating's count of games is the games rated in its pool (every
        # rated game of a person of this journey is one of this journey's).
        people = [person["id"] for person in self.people]
        async with self.world.engine.connect() as db:
            counted = {
                (player_id, pool): games
                for player_id, pool, games in (
                    await db.execute(
                        text(
                            "SELECT player_id, pool, games FROM ratings "
                            f"WHERE player_id IN ({', '.join(map(str, people))})"
                        )
                    )
                ).all()
            }
        assert counted == dict(rated), (counted, dict(rated))

    def _check_winner_told(self, game: GameView) -> None:
        """A stranger whose opponent left, or ran out of time, got a message saying so."""
        if game.end_reason not in FORFEITS | {EndReason.TIMEOUT} or game.result not in (X, O):
            return
        winner = game.result
        chat_id = game.chat_id if winner == X else game.second_chat_id
        tr: Texts = texts_for(game.language if winner == X else game.second_language)
        if chat_id is None:
            return
        news = "OPPONENT_TIMED_OUT" if game.end_reason == EndReason.TIMEOUT else "OPPONENT_LEFT"
        template: str = getattr(tr, news)
        said = [m.text for m in self.tg.bot_messages(chat_id)]
        if game.player_id_of(other(winner)) is None:
            # The loser has used /forget since: their name is gone from the game, not from
            # the message that told the winner.
            before, after = template.split("{name}")
            told = [t for t in said if t.startswith(before) and t.endswith(after)]
            assert told, (game.id, game.end_reason, template, said[-3:])
            return
        told_now = template.format(name=player_name(game, other(winner), tr))
        assert told_now in said, (game.id, game.end_reason, told_now, said[-3:])

    async def _check_board(self, game_id: int, where: tuple[Any, ...], over: bool = False) -> None:
        """The game's board (and a stranger's second board) shows the stored game: a live one,
        or (`over`) one that has ended, whose boards say how, with any rating change."""
        application = self.world.bot.application
        assert application is not None
        game = await application.bot_data.running.games.store.get_game(game_id)
        assert game is not None
        found = self.tg.inline_messages if len(where) == 1 else self.tg.messages
        message: StoredMessage | None = found[where[0] if len(where) == 1 else where]  # type: ignore[index]
        assert message is not None
        if over and (message.deleted or message.chat_id in self.blocked):
            message = None  # a board the bot took away, or cannot edit: blocked
        else:
            assert not message.deleted, (game_id, "its board was deleted")
        # Ultimate's text names the small board the player chose to look at (a view of the
        # same stored game), or the choice of them.
        blocks = [None, *range(9)] if is_ultimate(game.board) else [None]
        shown = {_unclocked(render_game(game, block=block).text) for block in blocks}
        if message is not None:
            assert _unclocked(message.text) in shown, (game_id, game.end_reason, message.text)
        if (
            game.second_chat_id is not None
            and game.second_message_id is not None
            and not (over and game.second_chat_id in self.blocked)
        ):
            # A game between strangers: ⭕'s board, in ⭕'s chat and language, shows it too.
            second = self.tg.messages[(game.second_chat_id, game.second_message_id)]
            views = {
                _unclocked(render_game(second_view(game), block=block).text) for block in blocks
            }
            assert _unclocked(second.text) in views, (game_id, "second board", second.text)
            assert "⏱" in second.text, (game_id, "a stranger's board shows the clock")


def _unclocked(text: str) -> str:
    """A board's text but its clock line: a running clock is redrawn as it runs
    (`clock_rules`), so the board may show it read later than the stored turn's start."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("⏱"))


def _has_cancel(tg: FakeTelegram, message: StoredMessage) -> bool:
    """Whether a message is a live waiting message (its Cancel button)."""
    return any(data == "qc" for row in tg.keyboard(message) for _, data in row)


def journeys_of(shard: int) -> int:
    """The shard's share of the JOURNEYS (the shares add up to them)."""
    return JOURNEYS // JOURNEY_SHARDS + (shard < JOURNEYS % JOURNEY_SHARDS)


SHARDS = [pytest.param(n, id=f"{n + 1}of{JOURNEY_SHARDS}") for n in range(JOURNEY_SHARDS)]


@pytest.mark.parametrize("shard", SHARDS)
def test_journeys_across_every_feature(both_clocks: str, shard: int, world: World) -> None:
    # On the shortened flood windows (the default run), and on Telegram's own clock (the
    # paced tier), where a group's minute is a minute and the steps interleave as they do live.
    assert (world.telegram.time_scale == TELEGRAM_CLOCK) == (both_clocks == "telegram")
    if not journeys_of(shard):
        pytest.skip(f"JOURNEYS={JOURNEYS} leaves shard {shard + 1} of {JOURNEY_SHARDS} none")

    class WorldJourney(Journey):
        pass

    WorldJourney.world = world
    walk = settings(
        max_examples=journeys_of(shard),
        stateful_step_count=JOURNEY_STEPS,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        # JOURNEY_SHRINK=0 reports the first failing journey as found (a soak's failure can
        # take long to shrink: every step waits for the bot, under the flood limits).
        phases=[p for p in Phase if p is not Phase.shrink or SHRINK],
    )
    if walk.derandomize:
        # Derandomized, hypothesis seeds a run by the test's code, the same in every shard.
        seed(shard)(WorldJourney)
    started = time.monotonic()
    try:
        run_state_machine_as_test(WorldJourney, settings=walk)
    finally:
        took = time.monotonic() - started
        steps = sum(world.steps.values())
        print(f"journeys: {world.examples} examples, {steps} steps in {took:.0f} s")
        print(f"steps by kind: {dict(world.steps)}")


def _pool(game: GameView) -> str | None:
    """The rating pool a game of a person is rated in (None: an AI match, a game of more)."""
    if game.is_ai_match or game.is_many:
        return None
    pool = pool_of(game.board)
    return ai_pool(pool) if game.is_against_ai else pool
