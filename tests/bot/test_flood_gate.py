"""The flood gate on its own: which calls wait for which buckets, in what order, and what a
429 does. The calls are stand-ins that record when they run; every assertion is on that order
or on what is still queued, never on how long anything took."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.telegram.flood_gate import (
    TELEGRAM_FLOOD_LIMITS,
    FloodGate,
    FloodLimits,
    FrameSkipped,
    Pace,
    Rate,
    is_message,
    running_slot,
)

# PTB's own RetryAfter warns about its future type when it is made.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP, OTHER_GROUP, PRIVATE = -100500, -100600, 1001
#: Refills so slow that nothing is refilled while a test runs: what waits, waits.
SLOW = 1000.0


class Calls:
    """Stand-ins for PTB's request callback: each records its name when it runs, and may
    first fail with the 429s queued for it."""

    def __init__(self, gate: FloodGate) -> None:
        self.gate = gate
        self.ran: list[str] = []
        self.floods: dict[str, list[int]] = {}
        #: Calls that, once sent, wait for their event before they are answered.
        self.in_flight: dict[str, asyncio.Event] = {}

    async def send(
        self,
        name: str,
        chat_id: int | str | None = GROUP,
        pace: Pace | None = None,
        endpoint: str = "editMessageText",
    ) -> bool:
        async def callback(*_args: Any, **_kwargs: Any) -> bool:
            if self.floods.get(name):
                self.ran.append(f"{name}: 429")
                raise RetryAfter(self.floods[name].pop(0))
            self.ran.append(name)
            if name in self.in_flight:
                await self.in_flight[name].wait()
            return True

        data = {} if chat_id is None else {"chat_id": chat_id}
        result = await self.gate.process_request(callback, (), {}, endpoint, data, pace)
        assert result is True
        return result

    async def queue(self, name: str, *args: Any, **kwargs: Any) -> asyncio.Task[bool]:
        """Start a call, and let it run until it waits (or is done)."""
        task = asyncio.create_task(self.send(name, *args, **kwargs))
        for _ in range(3):
            await asyncio.sleep(0)
        return task


def group_only(rate: Rate, reserve: int = 0) -> FloodGate:
    return FloodGate(FloodLimits(overall=None, group=rate, private=None, reserve=reserve))


async def cancel(*tasks: asyncio.Task[Any]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def test_what_counts_as_a_message() -> None:
    for endpoint in ("sendMessage", "editMessageText", "editMessageReplyMarkup", "copyMessage"):
        assert is_message(endpoint)
    for endpoint in ("answerCallbackQuery", "answerInlineQuery", "sendChatAction", "getMe"):
        assert not is_message(endpoint)


async def test_telegrams_group_burst_less_one_spare_token_goes_at_once() -> None:
    calls = Calls(FloodGate(TELEGRAM_FLOOD_LIMITS))
    for i in range(19):
        await calls.send(f"m{i}")
    twentieth = await calls.queue("m19")
    assert not twentieth.done() and calls.gate.waiting(GROUP) == 1
    # Another group, and a private chat, have buckets of their own.
    await calls.send("other group", OTHER_GROUP)
    await calls.send("private", PRIVATE)
    await calls.send("private again", PRIVATE)
    assert calls.ran[-3:] == ["other group", "private", "private again"]
    await cancel(twentieth)
    assert calls.gate.waiting(GROUP) == 0


async def test_people_go_before_queued_background_calls() -> None:
    # Two tokens at once, then one every 0.05 s: enough to see the order of a short queue.
    calls = Calls(group_only(Rate(20, 1.0, burst=3)))
    await calls.send("b1", pace=Pace.BACKGROUND)
    await calls.send("b2", pace=Pace.BACKGROUND)
    queued = [await calls.queue(f"b{i}", pace=Pace.BACKGROUND) for i in (3, 4)]
    queued.append(await calls.queue("person"))
    assert calls.gate.waiting(GROUP) == 3
    await asyncio.gather(*queued)
    assert calls.ran == ["b1", "b2", "person", "b3", "b4"]


async def test_background_never_takes_the_groups_reserve() -> None:
    calls = Calls(group_only(Rate(1, SLOW, burst=4), reserve=2))  # three tokens, two reserved
    await calls.send("match frame", pace=Pace.BACKGROUND)
    final = await calls.queue("match final", pace=Pace.BACKGROUND)
    await calls.send("tap")
    await calls.send("next tap")
    assert calls.ran == ["match frame", "tap", "next tap"]
    assert not final.done() and calls.gate.waiting(GROUP) == 1
    await cancel(final)


async def test_a_frame_with_no_room_is_skipped_not_queued() -> None:
    calls = Calls(group_only(Rate(1, SLOW, burst=3), reserve=1))  # two tokens, one reserved
    await calls.send("frame 1", pace=Pace.FRAME)
    with pytest.raises(FrameSkipped):
        await calls.send("frame 2", pace=Pace.FRAME)
    assert calls.gate.waiting(GROUP) == 0
    final = await calls.queue("final", pace=Pace.BACKGROUND)
    assert calls.gate.waiting(GROUP) == 1
    await calls.send("tap")  # the reserve
    assert calls.ran == ["frame 1", "tap"]
    await cancel(final)
    assert calls.gate.waiting(GROUP) == 0


async def test_a_frame_does_not_overtake_a_queued_final_board() -> None:
    calls = Calls(group_only(Rate(20, 1.0, burst=2)))  # one token, then one every 0.05 s
    await calls.send("frame 1", pace=Pace.FRAME)
    final = await calls.queue("final", pace=Pace.BACKGROUND)
    with pytest.raises(FrameSkipped):
        await calls.send("frame 2", pace=Pace.FRAME)
    await final
    assert calls.ran == ["frame 1", "final"]


async def test_answers_and_other_calls_are_never_held() -> None:
    calls = Calls(group_only(Rate(1, SLOW, burst=2)))
    await calls.send("board")
    queued = await calls.queue("next board")
    await calls.send("answer", None, endpoint="answerCallbackQuery")
    await calls.send("typing", GROUP, endpoint="sendChatAction")
    await calls.send("getChat", GROUP, endpoint="getChat")
    assert calls.ran == ["board", "answer", "typing", "getChat"]
    await cancel(queued)


async def test_the_whole_bots_bucket_holds_every_chats_background_calls() -> None:
    limits = FloodLimits(overall=Rate(2, SLOW, burst=3), group=None, private=None, reserve=0)
    calls = Calls(FloodGate(limits))
    await calls.send("group", GROUP, pace=Pace.BACKGROUND)
    await calls.send("private", PRIVATE, pace=Pace.BACKGROUND)
    queued = await calls.queue("another private", PRIVATE + 1, pace=Pace.BACKGROUND)
    assert not queued.done()
    with pytest.raises(FrameSkipped):
        await calls.send("frame", PRIVATE + 2, pace=Pace.FRAME)
    await cancel(queued)


async def test_a_call_someone_waits_for_is_held_by_its_chat_alone() -> None:
    # "There is no global limit on the number of sent messages for bots" (tdlib/td#3034):
    # what people wait for is paced per chat, never by the whole bot's budget.
    limits = FloodLimits(overall=Rate(1, SLOW, burst=2), group=Rate(20, 60.0), reserve=0)
    calls = Calls(FloodGate(limits))
    await calls.send("background", GROUP, pace=Pace.BACKGROUND)  # the bot's one token
    for i in range(5):
        await calls.send(f"edit {i}", PRIVATE + i)
    await calls.send("group's edit", OTHER_GROUP)
    assert calls.ran[-1] == "group's edit" and len(calls.ran) == 7


async def test_a_call_in_flight_holds_its_token_until_it_is_answered() -> None:
    # Telegram counts a call when it arrives, and a busy host or network can delay that until
    # the answer: so tokens refill from the answer on, however long ago the call left.
    limits = FloodLimits(overall=None, group=Rate(1000, 1.0, burst=3), private=None, reserve=0)
    calls = Calls(FloodGate(limits))  # two tokens, then one a millisecond
    calls.in_flight = {"a": asyncio.Event(), "b": asyncio.Event()}
    sent = [await calls.queue(name, GROUP) for name in "ab"]
    third = await calls.queue("c", GROUP)
    await asyncio.sleep(0.05)  # fifty refills' time, all spent waiting for an answer
    assert calls.ran == ["a", "b"] and not third.done()
    calls.in_flight["a"].set()
    await asyncio.gather(sent[0], third)
    assert calls.ran == ["a", "b", "c"]
    calls.in_flight["b"].set()
    await sent[1]


async def test_a_cancelled_waiter_gives_its_place_to_the_next() -> None:
    calls = Calls(group_only(Rate(20, 1.0, burst=2)))
    await calls.send("first")
    leaving = await calls.queue("leaving")
    staying = await calls.queue("staying")
    await cancel(leaving)
    await staying
    assert calls.ran == ["first", "staying"]


async def test_a_429_closes_the_chat_and_the_call_queues_again() -> None:
    calls = Calls(group_only(Rate(20, 1.0, burst=20)))
    calls.floods["flooded"] = [1]
    flooded = await calls.queue("flooded")
    same_chat = await calls.queue("same chat")
    await calls.send("other group", OTHER_GROUP)
    assert calls.ran == ["flooded: 429", "other group"]
    assert calls.gate.waiting(GROUP) == 2  # the chat is closed for retry_after
    await asyncio.gather(flooded, same_chat)
    assert calls.ran[2:] == ["flooded", "same chat"]


async def test_a_429_on_a_call_with_no_bucket_is_waited_out_and_sent_again() -> None:
    calls = Calls(group_only(Rate(20, 1.0)))
    calls.floods["answer"] = [0]
    await calls.send("answer", None, endpoint="answerCallbackQuery")
    assert calls.ran == ["answer: 429", "answer"]


async def test_a_long_or_repeated_429_goes_to_the_caller() -> None:
    gate = FloodGate(FloodLimits.unlimited(), max_attempts=2, max_retry_after=60)
    calls = Calls(gate)
    calls.floods["long"] = [3600]
    with pytest.raises(RetryAfter):
        await calls.send("long")
    calls.floods["repeated"] = [0, 0, 0]
    with pytest.raises(RetryAfter):
        await calls.send("repeated")
    assert calls.ran == ["long: 429", "repeated: 429", "repeated: 429"]


def test_a_reserve_must_leave_background_a_token() -> None:
    with pytest.raises(ValueError, match="reserve"):
        group_only(Rate(20, 60.0, burst=3), reserve=2)


class StandInSlot:
    """The update processor's shared slot, as the gate sees it: steps recorded."""

    def __init__(self, calls: Calls) -> None:
        self.calls = calls

    def step_out(self) -> bool:
        self.calls.ran.append("slot given back")
        return True

    async def step_in(self) -> None:
        self.calls.ran.append("slot taken again")


async def test_a_call_waits_for_its_pace_out_of_its_updates_slot() -> None:
    calls = Calls(group_only(Rate(20, 1.0, burst=2)))  # one token, then one every 0.05 s
    running_slot.set(StandInSlot(calls))  # this test's own context: no other test sees it
    await calls.send("first")
    await calls.send("second")
    with pytest.raises(FrameSkipped):
        await calls.send("frame", pace=Pace.FRAME)
    # Given back while it waits, taken again once sent: a call that holds its tokens never
    # waits for a slot.
    assert calls.ran == ["first", "slot given back", "second", "slot taken again"]


async def test_a_call_refused_with_429_waits_out_of_its_updates_slot() -> None:
    calls = Calls(group_only(Rate(20, 1.0, burst=20)))
    running_slot.set(StandInSlot(calls))  # this test's own context
    calls.floods["flooded"] = [0]
    await calls.send("flooded")
    assert calls.ran == ["flooded: 429", "slot given back", "flooded", "slot taken again"]
