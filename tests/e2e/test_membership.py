"""The bot joins and leaves chats: added to a group it says how to start, once; removed from
a group (or blocked in private), the games it cannot show any more are closed."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.models import Game
from bot.locales import en, ru
from tests.support.bot_runner import BotRunner, quiesce, settle
from tests.support.chat import send
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
IVAN = FakeTelegram.user(1003, "Иван", language_code="ru")
GROUP = FakeTelegram.group_chat(-100654, "Friends")
SUPERGROUP = FakeTelegram.group_chat(-1001234, "Big friends", supergroup=True)


async def statuses(engine: AsyncEngine, chat_id: int) -> list[tuple[str, str | None]]:
    async with engine.connect() as connection:
        rows = await connection.execute(
            select(Game.status, Game.end_reason).where(Game.chat_id == chat_id).order_by(Game.id)
        )
        return [tuple(row) for row in rows]


async def test_added_to_a_group_the_bot_says_how_to_start_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    telegram.membership_changed(GROUP, ALICE, "left", "member")
    telegram.membership_changed(SUPERGROUP, IVAN, "left", "member")
    await settle(telegram)
    assert [m.text for m in telegram.bot_messages(GROUP["id"])] == [en.GROUP_HELLO]
    assert [m.text for m in telegram.bot_messages(SUPERGROUP["id"])] == [ru.GROUP_HELLO]
    # The same news again (Telegram repeats itself): still in the group, nothing more to say.
    telegram.membership_changed(GROUP, ALICE, "member", "member")
    await settle(telegram)
    assert len(telegram.bot_messages(GROUP["id"])) == 1


async def test_removed_from_a_group_its_games_there_are_closed(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    telegram.membership_changed(GROUP, ALICE, "left", "member")
    await send(telegram, ALICE, "/challenge", chat=GROUP)
    await send(telegram, BOB, "/start hard", chat=GROUP)
    await send(telegram, BOB, "/start easy easy 8", chat=GROUP)  # a long AI match
    await send(telegram, ALICE, "/start hard")  # in private: not touched
    await settle(telegram)
    assert [s for s, _ in await statuses(engine, GROUP["id"])][:2] == ["open", "active"]

    telegram.membership_changed(GROUP, BOB, "member", "kicked")
    await settle(telegram)
    sent = len(telegram.calls)
    assert await statuses(engine, GROUP["id"]) == [
        ("cancelled", "cancelled"),
        ("abandoned", "abandoned"),
        ("abandoned", "abandoned"),
    ]
    assert await statuses(engine, ALICE["id"]) == [("active", None)]
    # The AI match stopped: nothing more is sent to the group.
    await quiesce(telegram)
    assert [c for c in telegram.calls[sent:] if c.params.get("chat_id") == GROUP["id"]] == []


async def test_blocked_in_private_the_game_there_is_closed(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, ALICE, "/start hard")
    telegram.membership_changed(FakeTelegram.private_chat(ALICE), ALICE, "member", "kicked")
    await settle(telegram)
    assert await statuses(engine, ALICE["id"]) == [("abandoned", "abandoned")]
    assert len(telegram.bot_messages(ALICE["id"])) == 1
