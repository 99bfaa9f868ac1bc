"""Group membership as Telegram says it (bot.webapp.members), through the real PTB client
against the fake Bot API: who counts as a member, and how long an answer is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from bot.webapp.members import MEMBER_SECONDS, RETRY_SECONDS, GroupMembers
from tests.support.fake_telegram import FakeTelegram

GROUP = FakeTelegram.group_chat(-100700, "Club", supergroup=True)
ALICE = FakeTelegram.user(1001, "Alice")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(flood_limits=False) as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, base_url=fake.base_url) as client:
        yield client


@pytest.mark.parametrize(
    ("status", "is_member", "member"),
    [
        ("creator", True, True),
        ("administrator", True, True),
        ("member", True, True),
        ("restricted", True, True),
        ("restricted", False, False),
        ("left", True, False),
        ("kicked", True, False),
    ],
)
async def test_members_are_those_telegram_counts_in_the_chat(
    fake: FakeTelegram, bot: Bot, status: str, is_member: bool, member: bool
) -> None:
    fake.set_member(GROUP, ALICE, status, is_member=is_member)
    assert await GroupMembers(bot).is_member(GROUP["id"], ALICE["id"]) is member


async def test_refusals_are_no_and_an_answer_is_kept_a_while(fake: FakeTelegram, bot: Bot) -> None:
    clock = Clock()
    members = GroupMembers(bot, clock=clock)
    assert await members.is_member(-100999, ALICE["id"]) is False  # chat not found
    fake.add_chat(GROUP)
    assert await members.is_member(GROUP["id"], ALICE["id"]) is False  # user not found
    fake.set_member(GROUP, ALICE, "member")
    assert await members.is_member(GROUP["id"], ALICE["id"]) is False  # still the kept "no"
    clock.now += MEMBER_SECONDS + 1
    assert await members.is_member(GROUP["id"], ALICE["id"]) is True
    fake.set_member(GROUP, ALICE, "kicked")
    for _ in range(10):
        assert await members.is_member(GROUP["id"], ALICE["id"]) is True
    asked = len(fake.calls_of("getChatMember"))
    assert asked == 3
    clock.now += MEMBER_SECONDS + 1
    assert await members.is_member(GROUP["id"], ALICE["id"]) is False  # gone: seen in time


async def test_when_telegram_cannot_be_reached_the_answer_is_no_and_asked_again_soon(
    fake: FakeTelegram, bot: Bot
) -> None:
    clock = Clock()
    members = GroupMembers(bot, clock=clock)
    fake.set_member(GROUP, ALICE, "member")
    fake.fail_next("getChatMember", 500, "Internal Server Error")
    assert await members.is_member(GROUP["id"], ALICE["id"]) is False
    clock.now += RETRY_SECONDS + 1
    assert await members.is_member(GROUP["id"], ALICE["id"]) is True
