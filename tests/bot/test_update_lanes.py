"""The update lanes on their own: updates are PTB objects, handlers are stand-ins that record
when they start and wait until the test lets them finish. Every assertion is on order, on
what ran, waits or was shed, never on how long anything took."""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from telegram import CallbackQuery, Chat, InlineQuery, Message, Update, User

from bot.locales import en
from bot.telegram import update_lanes
from bot.telegram.flood_gate import FloodGate, FloodLimits, Rate, running_slot
from bot.telegram.update_lanes import UpdateLanes, lane_key

ALICE, BOB = 1001, 1002
GROUP = -100500
NOW = datetime(2025, 1, 1, tzinfo=UTC)
#: What a shed tap's pop-up says (the test users' clients name no language: English).
BUSY = en.POPUP_BUSY


class AnsweringBot:
    """What a shed tap needs of the bot: answerCallbackQuery, recorded."""

    def __init__(self) -> None:
        self.answered: list[tuple[str, str | None]] = []

    async def answer_callback_query(self, callback_query_id: str, **kwargs: Any) -> bool:
        self.answered.append((callback_query_id, kwargs.get("text")))
        return True


BOT = AnsweringBot()


def message(update_id: int, chat_id: int, user_id: int = ALICE) -> Update:
    chat = Chat(chat_id, Chat.PRIVATE if chat_id > 0 else Chat.GROUP)
    user = User(user_id, "U", is_bot=False)
    text = Message(update_id, NOW, chat, from_user=user, text="/help")
    return Update(update_id, message=text)


def tap(update_id: int, chat_id: int, user_id: int = ALICE) -> Update:
    chat = Chat(chat_id, Chat.PRIVATE if chat_id > 0 else Chat.GROUP)
    user = User(user_id, "U", is_bot=False)
    board = Message(1, NOW, chat)
    query = CallbackQuery(f"q{update_id}", user, "instance", message=board, data="c")
    query.set_bot(BOT)  # type: ignore[arg-type]
    return Update(update_id, callback_query=query)


class Handlers:
    """Stand-in handlers: each records its update's id when it starts, then waits for the
    test to release it (all at once, or one by one)."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.finished: list[int] = []
        self.release = asyncio.Event()
        self.coroutines: dict[int, Any] = {}

    def __call__(self, update: Update, *, hold: bool = True) -> Any:
        async def handle() -> None:
            self.started.append(update.update_id)
            if hold:
                await self.release.wait()
            self.finished.append(update.update_id)

        coroutine = handle()
        self.coroutines[update.update_id] = coroutine
        return coroutine

    def closed_unstarted(self) -> list[int]:
        return sorted(
            update_id
            for update_id, coroutine in self.coroutines.items()
            if inspect.getcoroutinestate(coroutine) == inspect.CORO_CLOSED
            and update_id not in self.started
        )


async def feed(
    lanes: UpdateLanes, handlers: Handlers, updates: list[Update], **kwargs: Any
) -> list[asyncio.Task[None]]:
    """Hand updates over as PTB does (a task each, in order), and let them run until they
    wait."""
    tasks = [
        asyncio.create_task(lanes.process_update(update, handlers(update, **kwargs)))
        for update in updates
    ]
    await let_run()
    return tasks


async def let_run() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def fresh_bot() -> None:
    BOT.answered.clear()


async def test_a_lane_runs_two_at_once_and_queues_the_rest_in_order() -> None:
    lanes, handlers = UpdateLanes(64), Handlers()
    tasks = await feed(lanes, handlers, [message(i, ALICE) for i in range(1, 6)])
    assert handlers.started == [1, 2] and lanes.queued(ALICE) == 3
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 2, 3, 4, 5] and handlers.finished == handlers.started
    assert lanes.queued(ALICE) == 0 and not lanes._lanes  # an idle lane is forgotten


async def test_a_group_runs_more_updates_at_once_than_a_private_chat() -> None:
    # Several people play in a group: each tap is answered while its edit waits for the pace.
    lanes, handlers = UpdateLanes(64, per_lane=2, per_group_lane=4), Handlers()
    tasks = await feed(lanes, handlers, [message(i, GROUP) for i in range(1, 7)])
    assert handlers.started == [1, 2, 3, 4] and lanes.queued(GROUP) == 2
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert sorted(handlers.finished) == [1, 2, 3, 4, 5, 6]


async def test_taps_go_before_messages_that_queued_earlier() -> None:
    lanes, handlers = UpdateLanes(64, per_lane=1), Handlers()
    updates = [message(1, ALICE), message(2, ALICE), tap(3, ALICE), message(4, ALICE)]
    updates.append(tap(5, ALICE))
    tasks = await feed(lanes, handlers, updates)
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 3, 5, 2, 4]


async def test_another_chat_runs_at_once_behind_a_full_lane() -> None:
    lanes, handlers = UpdateLanes(64, queued_others=3), Handlers()
    tasks = await feed(lanes, handlers, [message(i, ALICE) for i in range(1, 20)])
    tasks += await feed(lanes, handlers, [tap(100, BOB), message(101, GROUP, BOB)])
    assert handlers.started == [1, 2, 100, 101]
    handlers.release.set()
    await asyncio.gather(*tasks)


async def test_the_shared_bound_holds_across_lanes_in_order_of_arrival() -> None:
    lanes, handlers = UpdateLanes(3), Handlers()
    updates = [message(1, ALICE), message(2, ALICE), message(3, ALICE), message(4, BOB)]
    updates += [message(5, GROUP), tap(6, BOB)]
    tasks = await feed(lanes, handlers, updates)
    assert handlers.started == [1, 2, 4]
    assert lanes.current_concurrent_updates == 6  # PTB's count: every update held
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert sorted(handlers.started) == [1, 2, 3, 4, 5, 6]


async def test_the_surplus_of_messages_is_dropped_unstarted_with_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lanes, handlers = UpdateLanes(64, queued_others=3), Handlers()
    with caplog.at_level(logging.INFO, logger="bot.telegram.update_lanes"):
        tasks = await feed(lanes, handlers, [message(i, ALICE) for i in range(1, 31)])
        # Shed at once: their tasks are done, holding nothing.
        assert sum(task.done() for task in tasks) == 25
        handlers.release.set()
        await asyncio.gather(*tasks)
    assert handlers.started == [1, 2, 3, 4, 5]
    assert handlers.closed_unstarted() == list(range(6, 31))
    assert [r.getMessage() for r in caplog.records] == [
        f"chat {ALICE} sent more than it could be served: 0 taps answered unplayed, "
        "25 other updates dropped"
    ]


async def test_taps_past_the_queue_bound_are_answered_with_a_pop_up_that_they_did_nothing() -> None:
    lanes, handlers = UpdateLanes(64, queued_taps=2), Handlers()
    tasks = await feed(lanes, handlers, [tap(i, ALICE) for i in range(1, 8)])
    assert BOT.answered == [(f"q{i}", BUSY) for i in (5, 6, 7)]
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 2, 3, 4] and handlers.closed_unstarted() == [5, 6, 7]


async def test_a_tap_that_waited_past_its_patience_is_answered_and_never_runs() -> None:
    lanes, handlers = UpdateLanes(64, per_lane=1, tap_patience=0.01), Handlers()
    tasks = await feed(lanes, handlers, [message(1, ALICE), tap(2, ALICE), tap(3, BOB)])
    await asyncio.wait({tasks[1]})  # the tap gives up waiting
    assert BOT.answered == [("q2", BUSY)] and handlers.closed_unstarted() == [2]
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 3]  # Bob's tap, in its own lane, ran at once


async def test_a_freed_shared_slot_goes_to_a_tap_before_an_earlier_message() -> None:
    lanes, handlers = UpdateLanes(1), Handlers()
    tasks = await feed(lanes, handlers, [message(1, ALICE), message(2, BOB), tap(3, GROUP)])
    assert handlers.started == [1]  # both others wait for the one shared slot
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 3, 2]


async def test_a_tap_goes_ahead_of_a_waiting_message_only_by_its_lead() -> None:
    # With no lead, a freed slot goes in order of arrival across kinds: the message that came
    # first, then the tap (with the default lead of 2 s the tap goes first, as above).
    lanes, handlers = UpdateLanes(1, tap_lead=0.0), Handlers()
    tasks = await feed(lanes, handlers, [message(1, ALICE), message(2, BOB)])
    await asyncio.sleep(0.01)  # the tap comes after the message, on the loop's clock
    tasks += await feed(lanes, handlers, [tap(3, GROUP)])
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 2, 3]


async def test_a_tap_out_of_patience_for_a_shared_slot_is_answered_and_never_runs() -> None:
    # The lane had room, the shared slots had none: the handler, whose own "busy" answer comes
    # only once it starts, would have started past Telegram's 15 s (a crowd on a loaded host).
    lanes, handlers = UpdateLanes(1, tap_patience=0.01), Handlers()
    tasks = await feed(lanes, handlers, [message(1, ALICE), tap(2, BOB), message(3, GROUP)])
    await asyncio.wait({tasks[1]})
    assert BOT.answered == [("q2", BUSY)] and handlers.closed_unstarted() == [2]
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.started == [1, 3]  # the slot went on to the message behind it


async def test_every_update_runs_once_or_is_shed_never_both() -> None:
    lanes, handlers = UpdateLanes(4, queued_taps=3, queued_others=3), Handlers()
    updates = [(tap if i % 3 == 0 else message)(i, (ALICE, BOB, GROUP)[i % 3]) for i in range(90)]
    tasks = await feed(lanes, handlers, updates)
    handlers.release.set()
    await asyncio.gather(*tasks)
    ran, shed = handlers.finished, handlers.closed_unstarted()
    assert len(ran) == len(set(ran)) and not set(ran) & set(shed)
    assert sorted(ran + shed) == list(range(90))
    assert {query_id for query_id, _ in BOT.answered} == {f"q{i}" for i in shed if i % 3 == 0}


async def test_shutdown_sheds_what_still_waits_without_answering() -> None:
    lanes, handlers = UpdateLanes(64), Handlers()
    tasks = await feed(lanes, handlers, [tap(i, ALICE) for i in range(1, 6)])
    await lanes.shutdown()
    await let_run()
    assert all(task.done() for task in tasks[2:])
    assert handlers.closed_unstarted() == [3, 4, 5] and BOT.answered == []
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert handlers.finished == [1, 2]


async def test_a_cancelled_waiter_hands_its_turn_on_and_closes_its_coroutine() -> None:
    lanes, handlers = UpdateLanes(64, per_lane=1), Handlers()
    tasks = await feed(lanes, handlers, [message(i, ALICE) for i in range(1, 4)])
    tasks[1].cancel()
    await let_run()
    handlers.release.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert handlers.started == [1, 3] and handlers.closed_unstarted() == [2]


async def test_a_handler_waiting_for_its_pace_gives_its_shared_slot_to_another_chat() -> None:
    gate = FloodGate(FloodLimits(overall=None, group=None, private=Rate(1, 0.2, burst=2)))
    lanes, order = UpdateLanes(1), []

    async def reply(name: str, chat_id: int, times: int) -> None:
        async def callback() -> bool:
            order.append(name)
            return True

        for _ in range(times):  # a second reply waits for the chat's next token
            await gate.process_request(callback, (), {}, "sendMessage", {"chat_id": chat_id}, None)
        order.append(f"{name} done")

    alice = asyncio.create_task(lanes.process_update(message(1, ALICE), reply("a", ALICE, 2)))
    await let_run()
    bob = asyncio.create_task(lanes.process_update(message(2, BOB), reply("b", BOB, 1)))
    await asyncio.gather(alice, bob)
    # With one shared slot, Bob's reply went while Alice's second waited for her pace.
    assert order == ["a", "b", "b done", "a", "a done"]
    assert running_slot.get() is None


async def test_updates_in_no_chat_go_by_their_sender_or_by_no_lane() -> None:
    user = User(BOB, "Bob", is_bot=False)
    inline = Update(7, inline_query=InlineQuery("i1", user, "", ""))
    assert lane_key(inline) == BOB and lane_key(Update(8)) is None
    assert lane_key(message(9, GROUP, ALICE)) == GROUP
    lanes, handlers = UpdateLanes(64), Handlers()
    tasks = await feed(lanes, handlers, [Update(8), inline], hold=False)
    await asyncio.gather(*tasks)
    assert handlers.finished == [8, 7] and not lanes._lanes


class StuckLines(logging.Handler):
    """The lane's log lines about updates waiting, and an event once they count `expected`."""

    def __init__(self, expected: int) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.expected = expected
        self.all_counted = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        if self.counted() >= self.expected:
            self.all_counted.set()

    def counted(self) -> int:
        """The waiting updates the lines count (`5 in their chat's lane, 5 for a slot`)."""
        return sum(int(n) for line in self.lines for n in re.findall(r"(\d+) (?:in|for) ", line))


async def test_an_update_waiting_long_for_its_turn_says_where_and_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(update_lanes, "STUCK_SECONDS", 0.01)
    monkeypatch.setattr(update_lanes, "STUCK_LOG_EVERY", 1.0)
    lanes = UpdateLanes(running=1, per_lane=1)
    handlers = Handlers()
    stuck = StuckLines(expected=10)
    update_lanes.log.addHandler(stuck)
    try:
        # Alice's first message runs in the one shared slot; five more of hers wait in her
        # lane, and five other chats' messages wait for the slot.
        crowd = [message(i, ALICE) for i in range(1, 7)]
        crowd += [message(i, BOB + i) for i in range(7, 12)]
        tasks = await feed(lanes, handlers, crowd)
        await asyncio.wait_for(stuck.all_counted.wait(), 10)
    finally:
        update_lanes.log.removeHandler(stuck)
    assert stuck.counted() == 10
    # One line for the crowd (the first waiter's may come alone, before the others).
    assert len(stuck.lines) <= 2
    said = " ".join(stuck.lines)
    assert "in their chat's lane" in said and "for a shared slot" in said
    handlers.release.set()
    await asyncio.gather(*tasks)
    assert sorted(handlers.finished) == list(range(1, 12))
