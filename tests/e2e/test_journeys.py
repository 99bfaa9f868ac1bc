"""Journeys: random sequences of what people do, across every feature at once, against the real
bot and the strict fake Bot API, with the invariants checked after every step.

Features are each tested alone elsewhere; here they are played into each other the way people
do: a new game over an unfinished one of another kind, `/forget` or `/language` mid-game, an
inline game beside a chat game, a group challenge while an AI match runs, stale and double
taps, taps by people who are not playing, typed moves good and bad. After every step:

- nothing was logged at ERROR, and nobody read "something went wrong";
- every tap was answered exactly once, and Telegram refused no call of the bot's;
- every stored game's board is its stored moves replayed;
- every live game's board message shows the stored game;
- no two live games share a board message.

hypothesis drives it (`RuleBasedStateMachine`), so a broken invariant is reported as the
shortest sequence of steps that breaks it. `JOURNEYS` (examples) and `JOURNEY_STEPS` (steps
per example, at most) set how long it walks: CI's defaults, or more for a soak, e.g.
`JOURNEYS=300 JOURNEY_STEPS=60 .venv/bin/python -m pytest tests/e2e/test_journeys.py`.

One bot and one database serve every example of a run (starting them per example would cost
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
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
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

from bot.games.db.engine import create_engine
from bot.games.model import LIVE
from bot.views.boards import second_view
from bot.views.render import render_game
from bot.views.texts import available_languages, texts_for
from core.positions import is_ultimate
from tests.support.bot_runner import BotRunner
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.time_scale import TELEGRAM_CLOCK

JOURNEYS = int(os.environ.get("JOURNEYS", "20"))
JOURNEY_STEPS = int(os.environ.get("JOURNEY_STEPS", "30"))
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
    "/challenge",
    "/challenge 5",
    "/play",
    "/play",
    "/play 6",
    "/play ultimate",
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
        self.tg.send_text(user, text_, chat=chat, reply_to=reply_to)

    async def _tap(
        self, user: dict[str, Any], message: StoredMessage, data: str, times: int
    ) -> None:
        for _ in range(times):
            self.tapped_at[self.tg.tap(user, message, data)] = time.monotonic()

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
        # "Not modified" is the one refusal the bot cannot always avoid: of two taps on the
        # same old board (a double tap), the second edit finds the first one's result.
        refused = [
            c
            for c in calls
            if not c.ok and c.method != "getUpdates" and "not modified" not in str(c.description)
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
        for game_id, board, status, chat_id, message_id, inline_id in games:
            replayed = ["_"] * len(board)
            for _ply, cell, mark in sorted(played.get(game_id, [])):
                assert replayed[cell] == "_", (game_id, "a cell played twice")
                replayed[cell] = mark
            assert "".join(replayed) == board, (game_id, board, sorted(played.get(game_id, [])))
            if status not in LIVE:
                continue
            where = (inline_id,) if inline_id else (chat_id, message_id)
            if None in where:
                continue  # its board's posting got no answer: not known yet
            boards[where] += 1
            await self._check_board(game_id, where)
        shared = [where for where, count in boards.items() if count > 1]
        assert not shared, f"live games share a board message: {shared}"

    async def _check_board(self, game_id: int, where: tuple[Any, ...]) -> None:
        application = self.world.bot.application
        assert application is not None
        game = await application.bot_data.running.games.store.get_game(game_id)
        found = self.tg.inline_messages if len(where) == 1 else self.tg.messages
        message = found[where[0] if len(where) == 1 else where]  # type: ignore[index]
        assert not message.deleted, (game_id, "its board was deleted")
        # Ultimate's text names the small board the player chose to look at (a view of the
        # same stored game), or the choice of them.
        blocks = [None, *range(9)] if is_ultimate(game.board) else [None]
        shown = {render_game(game, block=block).text for block in blocks}
        assert message.text in shown, (game_id, message.text)
        if game.second_chat_id is not None and game.second_message_id is not None:
            # A game between strangers: ⭕'s board, in ⭕'s chat and language, shows it too.
            second = self.tg.messages[(game.second_chat_id, game.second_message_id)]
            views = {render_game(second_view(game), block=block).text for block in blocks}
            assert second.text in views, (game_id, "second board", second.text)


def test_journeys_across_every_feature(both_clocks: str, world: World) -> None:
    # On the shortened flood windows (the default run), and on Telegram's own clock (the
    # paced tier), where a group's minute is a minute and the steps interleave as they do live.
    assert (world.telegram.time_scale == TELEGRAM_CLOCK) == (both_clocks == "telegram")

    class WorldJourney(Journey):
        pass

    WorldJourney.world = world
    started = time.monotonic()
    try:
        run_state_machine_as_test(
            WorldJourney,
            settings=settings(
                max_examples=JOURNEYS,
                stateful_step_count=JOURNEY_STEPS,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                # JOURNEY_SHRINK=0 reports the first failing journey as found (a soak's failure
                # can take long to shrink: every step waits for the bot, under the flood limits).
                phases=[p for p in Phase if p is not Phase.shrink or SHRINK],
            ),
        )
    finally:
        took = time.monotonic() - started
        steps = sum(world.steps.values())
        print(f"journeys: {world.examples} examples, {steps} steps in {took:.0f} s")
        print(f"steps by kind: {dict(world.steps)}")
