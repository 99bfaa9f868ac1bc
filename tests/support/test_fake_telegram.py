"""The fake Telegram server speaks the Bot API well enough for the real PTB client."""

from __future__ import annotations

import asyncio
import datetime as dtm
import logging
import warnings
from collections.abc import AsyncIterator

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    ChatMemberRestricted,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MessageEntity,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)
from telegram.request import HTTPXRequest
from telegram.warnings import PTBDeprecationWarning

from tests.support.fake_telegram import NOT_MODIFIED, QUERY_INVALID, FakeTelegram
from tests.support.time_scale import TELEGRAM_CLOCK

logging.getLogger("httpx").setLevel(logging.WARNING)

ALICE = FakeTelegram.user(1001, "Alice", username="alice")
BOB = FakeTelegram.user(1002, "Bob", language_code="de")


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, base_url=fake.base_url) as client:
        yield client


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )


def known_chat(fake: FakeTelegram, user: dict) -> int:
    fake.add_chat(fake.private_chat(user))
    return user["id"]


async def test_get_me(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert me.id == 123456
    assert me.is_bot
    assert me.username == "tictactoe_test_bot"
    assert me.can_join_groups is True
    assert me.can_read_all_group_messages is False
    assert me.supports_inline_queries is True
    assert bot.username == "tictactoe_test_bot"
    assert fake.calls_of("getMe")[0].ok


async def test_send_message_with_inline_keyboard(fake: FakeTelegram, bot: Bot) -> None:
    chat_id = known_chat(fake, ALICE)
    sent = await bot.send_message(
        chat_id, "Your move", reply_markup=keyboard([("1", "m:1"), ("2", "m:2")], [("New", "n")])
    )
    assert sent.message_id == 1
    assert sent.chat.id == chat_id and sent.chat.type == "private"
    assert sent.from_user is not None and sent.from_user.id == 123456
    assert sent.text == "Your move"
    assert sent.reply_markup is not None
    assert sent.reply_markup.inline_keyboard[1][0].callback_data == "n"
    assert isinstance(sent.date, dtm.datetime)

    call = fake.calls_of("sendMessage")[0]
    assert call.params["chat_id"] == chat_id
    assert call.params["reply_markup"]["inline_keyboard"][0][1]["callback_data"] == "m:2"
    stored = fake.last_bot_message(chat_id)
    assert stored.text == "Your move" and stored.edit_count == 0
    assert fake.keyboard(stored) == [[("1", "m:1"), ("2", "m:2")], [("New", "n")]]

    second = await bot.send_message(chat_id, "again", reply_to_message_id=sent.message_id)
    assert second.message_id == 2
    assert second.reply_to_message is not None
    assert second.reply_to_message.message_id == 1


async def test_send_message_errors(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await bot.send_message(555, "hello?")
    chat_id = known_chat(fake, ALICE)
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(chat_id, "<b>unclosed", parse_mode=ParseMode.HTML)
    assert "Can't find end tag" in (fake.calls_of("sendMessage")[-1].description or "")
    with pytest.raises(BadRequest):
        await bot.send_message(chat_id, "<b>x</i>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match=r"(?i)text is empty"):
        await bot.send_message(chat_id, "   ")
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
        await bot.send_message(chat_id, "x", reply_markup=keyboard([("big", "d" * 65)]))
    with pytest.raises(BadRequest, match=r"(?i)replied not found"):
        await bot.send_message(chat_id, "x", reply_to_message_id=42)

    ok = await bot.send_message(chat_id, "<b>X</b> &amp; o", parse_mode=ParseMode.HTML)
    assert ok.text == "X & o"
    assert fake.last_bot_message(chat_id).text == "<b>X</b> &amp; o"
    assert ok.message_id == 1  # failed sends do not use up message ids


async def test_edit_message_text(fake: FakeTelegram, bot: Bot) -> None:
    chat_id = known_chat(fake, ALICE)
    markup = keyboard([("X", "x")])
    sent = await bot.send_message(chat_id, "board 1", reply_markup=markup)

    edited = await bot.edit_message_text("board 2", chat_id, sent.message_id, reply_markup=markup)
    assert not isinstance(edited, bool)
    assert edited.text == "board 2" and edited.edit_date is not None
    stored = fake.messages[(chat_id, sent.message_id)]
    assert stored.text == "board 2" and stored.edit_count == 1

    with pytest.raises(BadRequest, match=r"(?i)message is not modified") as exc:
        await bot.edit_message_text("board 2", chat_id, sent.message_id, reply_markup=markup)
    assert "not modified" in str(exc.value).lower()
    failed = fake.calls_of("editMessageText")[-1]
    assert failed.error_code == 400 and failed.description == NOT_MODIFIED
    assert stored.edit_count == 1

    # Omitting reply_markup removes the keyboard, which counts as a modification.
    await bot.edit_message_text("board 2", chat_id, sent.message_id)
    assert stored.reply_markup is None and fake.keyboard(stored) == []
    assert stored.edit_count == 2

    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("nope", chat_id, 999)

    await bot.edit_message_reply_markup(chat_id, sent.message_id, reply_markup=markup)
    assert fake.keyboard(stored) == [[("X", "x")]]
    with pytest.raises(BadRequest, match=r"(?i)not modified"):
        await bot.edit_message_reply_markup(chat_id, sent.message_id, reply_markup=markup)

    assert await bot.delete_message(chat_id, sent.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("gone", chat_id, sent.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(chat_id, sent.message_id)


async def test_inline_message_edit_returns_true(fake: FakeTelegram, bot: Bot) -> None:
    inline = fake.add_inline_message("inline board", {"inline_keyboard": [[]]})
    assert inline.inline_message_id is not None
    result = await bot.edit_message_text("moved", inline_message_id=inline.inline_message_id)
    assert result is True
    assert inline.text == "moved" and inline.edit_count == 1


async def test_callback_query_answers(fake: FakeTelegram, bot: Bot) -> None:
    chat_id = known_chat(fake, ALICE)
    sent = await bot.send_message(chat_id, "pick", reply_markup=keyboard([("A", "a"), ("B", "b")]))
    query_id = fake.tap_button(ALICE, fake.last_bot_message(chat_id), "B")
    assert fake.callback_queries[query_id]["data"] == "b"
    assert fake.callback_queries[query_id]["message"]["message_id"] == sent.message_id

    assert await bot.answer_callback_query(query_id, text="Nice", show_alert=True)
    answer = await fake.answer_to(query_id)
    assert answer["text"] == "Nice" and answer["show_alert"] is True

    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await bot.answer_callback_query(query_id)
    assert fake.calls_of("answerCallbackQuery")[-1].description == QUERY_INVALID
    with pytest.raises(BadRequest, match=r"(?i)query id is invalid"):
        await bot.answer_callback_query("12345")
    with pytest.raises(AssertionError, match="no button"):
        fake.tap_button(ALICE, sent, "C")


async def test_get_updates_message_and_callback(fake: FakeTelegram, bot: Bot) -> None:
    group = fake.group_chat(-100, "Players")
    sent_by_user = fake.send_text(ALICE, "/start@tictactoe_test_bot now", chat=group)
    assert sent_by_user["message_id"] == 1

    updates = await bot.get_updates(timeout=0)
    assert len(updates) == 1
    message = updates[0].message
    assert message is not None
    assert message.text == "/start@tictactoe_test_bot now"
    assert message.chat.id == -100 and message.chat.type == "group"
    assert message.from_user is not None and message.from_user.username == "alice"
    assert message.entities == (MessageEntity(MessageEntity.BOT_COMMAND, 0, 25),)
    assert message.parse_entities(MessageEntity.BOT_COMMAND).popitem()[1] == (
        "/start@tictactoe_test_bot"
    )

    board = await bot.send_message(-100, "board", reply_markup=keyboard([("1", "c1")]))
    assert board.message_id == 2  # one message-id counter per chat, shared with users
    query_id = fake.tap(BOB, board, "c1")

    updates = await bot.get_updates(offset=updates[0].update_id + 1, timeout=0)
    assert [type(u) for u in updates] == [Update]
    query = updates[0].callback_query
    assert query is not None and query.id == query_id
    assert query.data == "c1" and query.from_user.id == BOB["id"]
    assert query.message is not None and query.message.message_id == 2
    assert query.message.reply_markup is not None

    # The offset confirmed the first update; the second is confirmed by the next offset.
    assert [u["update_id"] for u in fake.pending_updates] == [updates[0].update_id]
    assert await bot.get_updates(offset=updates[0].update_id + 1, timeout=0) == ()
    assert fake.pending_updates == []


async def test_long_polling_wakes_up_on_update(fake: FakeTelegram, bot: Bot) -> None:
    # With nothing to deliver, a poll waits (it is seen waiting) and then answers nothing.
    quiet = asyncio.create_task(bot.get_updates(timeout=dtm.timedelta(milliseconds=200)))
    await fake.wait_for_poll()
    assert not quiet.done()
    assert await quiet == ()

    # A poll that could wait 10 s answers as soon as an update comes (well within the
    # bound, which only keeps a broken fake from hanging the test).
    poll = asyncio.create_task(bot.get_updates(timeout=10))
    await fake.wait_for_poll()
    fake.send_text(BOB, "hello")
    updates = await asyncio.wait_for(poll, 5)
    assert len(updates) == 1 and updates[0].message is not None
    assert updates[0].message.text == "hello" and updates[0].message.entities == ()


async def test_wrong_token_and_unknown_method(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(InvalidToken):
        async with Bot("999:WRONG", base_url=fake.base_url):
            pass
    assert fake.calls[-1].error_code == 401
    assert fake.calls[-1].description == "Unauthorized"
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("noSuchMethod")
    assert fake.calls[-1].error_code == 404


async def test_fail_next(fake: FakeTelegram, bot: Bot) -> None:
    chat_id = known_chat(fake, ALICE)
    fake.fail_next("sendMessage", 429, retry_after=7)
    with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        with pytest.raises(RetryAfter) as exc:
            await bot.send_message(chat_id, "flood")
        retry_after = exc.value.retry_after
    if isinstance(retry_after, dtm.timedelta):
        retry_after = retry_after.total_seconds()
    assert retry_after == 7
    assert fake.calls[-1].error_code == 429

    fake.fail_next("sendMessage", 403, "Forbidden: bot was blocked by the user", count=2)
    for _ in range(2):
        with pytest.raises(Forbidden, match="blocked"):
            await bot.send_message(chat_id, "blocked")
    sent = await bot.send_message(chat_id, "works again")
    assert sent.message_id == 1


async def test_commands_round_trip(fake: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("start", "Start"), BotCommand("new", "New game")])
    assert [c.command for c in await bot.get_my_commands()] == ["start", "new"]
    assert await bot.get_my_commands(language_code="de") == ()
    assert await bot.delete_my_commands()
    assert await bot.get_my_commands() == ()


async def test_wait_for_times_out_with_context(fake: FakeTelegram, bot: Bot) -> None:
    await bot.get_me()
    with pytest.raises(AssertionError, match="timed out") as exc:
        await fake.wait_for("sendMessage", timeout=0.05)
    assert "getMe" in str(exc.value)


async def test_application_round_trip(fake: FakeTelegram) -> None:
    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None
        await update.message.reply_text(
            " ".join(context.args or []) or "(nothing)",
            reply_markup=keyboard([("Again", "again")]),
        )

    async def on_tap(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.message is not None
        await query.answer(f"tapped {query.data}")
        await query.edit_message_text(f"{query.message.text} (tapped)")  # type: ignore[union-attr]

    app: Application = ApplicationBuilder().token(fake.token).base_url(fake.base_url).build()
    app.add_handler(CommandHandler("echo", echo))
    app.add_handler(CallbackQueryHandler(on_tap))
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=1)
    try:
        fake.send_text(ALICE, "/echo hello world")
        reply = await fake.wait_for("sendMessage")
        assert reply.ok and reply.params["text"] == "hello world"
        assert reply.params["chat_id"] == ALICE["id"]

        board = fake.last_bot_message(ALICE["id"])
        assert fake.keyboard(board) == [[("Again", "again")]]
        query_id = fake.tap_button(ALICE, board, "Again")
        assert (await fake.answer_to(query_id))["text"] == "tapped again"
        edit = await fake.wait_for("editMessageText")
        assert edit.ok
        assert board.text == "hello world (tapped)" and board.reply_markup is None

        await fake.wait_idle(quiet=0.2)
        assert [c.method for c in fake.calls if c.method != "getUpdates"] == [
            "getMe",
            "deleteWebhook",
            "sendMessage",
            "answerCallbackQuery",
            "editMessageText",
        ]
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
    assert fake.pending_updates == []


async def test_params_decoding_form_and_json(fake: FakeTelegram, bot: Bot) -> None:
    chat_id = known_chat(fake, ALICE)
    sent = await bot.send_message(chat_id, "123")  # form data: text must stay a string
    assert sent.text == "123" and fake.calls_of("sendMessage")[-1].params["text"] == "123"

    url = f"{fake.base_url}{fake.token}/sendMessage"
    keyboard = {"inline_keyboard": [[{"text": "a", "callback_data": "1"}]]}
    body = {"chat_id": str(chat_id), "text": "json", "reply_markup": keyboard}
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as response:
        payload = await response.json()
    assert response.status == 200 and payload["ok"] is True
    assert payload["result"]["text"] == "json" and payload["result"]["reply_markup"] == keyboard
    assert fake.calls[-1].params["chat_id"] == chat_id


# --- flood limits and lost answers -----------------------------------------------------------

GROUP = FakeTelegram.group_chat(-100777, "Flooded")
OTHER_GROUP = FakeTelegram.group_chat(-100778, "Quiet")


async def retry_after_of(call: object) -> float:
    """The seconds a RetryAfter raised by `call` asks for."""
    with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        with pytest.raises(RetryAfter) as exc:
            await call  # type: ignore[misc]
        value = exc.value.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


async def test_flood_limits_per_group_count_sends_and_edits(fake: FakeTelegram, bot: Bot) -> None:
    for chat in (GROUP, OTHER_GROUP):
        fake.add_chat(chat)
    fake.time_scale = TELEGRAM_CLOCK  # Telegram's numbers, below
    fake.enforce_flood_limits(group=(3, 60.0), overall=None)
    first = await bot.send_message(GROUP["id"], "one")
    await bot.edit_message_text("one, edited", chat_id=GROUP["id"], message_id=first.message_id)
    await bot.send_chat_action(GROUP["id"], "typing")  # not a message: not counted
    await bot.send_message(GROUP["id"], "two")
    # The fourth message in a minute: refused, not carried out; 20 s until a token is back.
    assert await retry_after_of(bot.send_message(GROUP["id"], "three")) == 20
    refused = fake.calls[-1]
    assert refused.error_code == 429 and refused.description == "Too Many Requests: retry after 20"
    assert fake.too_many_requests == [refused]
    assert [m.text for m in fake.bot_messages(GROUP["id"])] == ["one, edited", "two"]
    # Each group has a bucket of its own; private chats are not limited unless asked.
    await bot.send_message(OTHER_GROUP["id"], "elsewhere")
    chat_id = known_chat(fake, ALICE)
    for _ in range(5):
        await bot.send_message(chat_id, "private")


class ManualClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_flood_limits_overall_and_private_refill_evenly() -> None:
    clock = ManualClock()
    fake = FakeTelegram(clock=clock, time_scale=TELEGRAM_CLOCK)
    async with fake, Bot(fake.token, base_url=fake.base_url) as bot:
        await _refill_evenly(fake, bot, clock)


async def _refill_evenly(fake: FakeTelegram, bot: Bot, clock: ManualClock) -> None:
    chat_id = known_chat(fake, ALICE)
    fake.add_chat(GROUP)
    fake.enforce_flood_limits(group=None, overall=(4, 1.0), private=(2, 1.0))
    await bot.send_message(chat_id, "1")
    await bot.send_message(chat_id, "2")
    assert await retry_after_of(bot.send_message(chat_id, "3")) == 1  # the chat's bucket
    await bot.send_message(GROUP["id"], "a")
    await bot.send_message(GROUP["id"], "b")
    assert await retry_after_of(bot.send_message(GROUP["id"], "c")) == 1  # the whole bot's
    # Answers to queries are no messages: never refused.
    query_id = fake.tap(ALICE, fake.last_bot_message(chat_id), "x")
    assert await bot.answer_callback_query(query_id)
    # Just before retry_after no token is back; after it, one is.
    clock.now += 0.4
    assert await retry_after_of(bot.send_message(chat_id, "3")) == 1
    clock.now += 0.6
    await bot.send_message(chat_id, "3")
    assert [m.text for m in fake.bot_messages(chat_id)] == ["1", "2", "3"]


async def test_a_lost_answer_comes_after_the_call_was_carried_out(
    fake: FakeTelegram, bot: Bot
) -> None:
    chat_id = known_chat(fake, ALICE)
    fake.lose_answer_next("sendMessage")
    with pytest.raises(NetworkError, match="disconnected"):
        await bot.send_message(chat_id, "lost")
    sent = fake.calls_of("sendMessage")
    assert [call.ok for call in sent] == [True] and fake.lost_answers == sent
    assert [m.text for m in fake.bot_messages(chat_id)] == ["lost"]
    # Only the next one: the following call is answered.
    assert (await bot.send_message(chat_id, "answered")).message_id == 2


async def test_a_held_answer_times_the_client_out(fake: FakeTelegram) -> None:
    chat_id = known_chat(fake, ALICE)
    fake.lose_answer_next("sendMessage", hold=0.5)
    request = HTTPXRequest(read_timeout=0.1)
    async with Bot(fake.token, base_url=fake.base_url, request=request) as bot:
        with pytest.raises(TimedOut):
            await bot.send_message(chat_id, "held")
        await fake.wait_idle(quiet=0.05)  # the held answer counts as in flight until it goes
        assert [m.text for m in fake.bot_messages(chat_id)] == ["held"]
        assert fake.lost_answers == fake.calls_of("sendMessage")
        assert (await bot.send_message(chat_id, "answered")).message_id == 2


async def test_get_chat_member_answers_as_telegram_does(fake: FakeTelegram, bot: Bot) -> None:
    """Members, the restricted in or out, those who left or were banned, people the bot
    knows who were never in the group, and the refusals: a chat the bot is not in, a user
    it never met."""
    group = fake.group_chat(-100123, "Friends", supergroup=True)
    carol = FakeTelegram.user(1003, "Carol")
    fake.send_text(ALICE, "hello", chat=group)  # writing in a group: a member
    fake.send_text(carol, "/start")  # known to the bot, never in the group
    fake.set_member(group, BOB, "restricted", is_member=True)
    member = await bot.get_chat_member(group["id"], ALICE["id"])
    assert member.status == "member" and member.user.id == ALICE["id"]
    restricted = await bot.get_chat_member(group["id"], BOB["id"])
    assert isinstance(restricted, ChatMemberRestricted) and restricted.is_member
    assert (await bot.get_chat_member(group["id"], carol["id"])).status == "left"
    for status in ("creator", "administrator", "left", "kicked"):
        fake.set_member(group, BOB, status)
        assert (await bot.get_chat_member(group["id"], BOB["id"])).status == status
    fake.set_member(group, BOB, "restricted", is_member=False)
    left = await bot.get_chat_member(group["id"], BOB["id"])
    assert isinstance(left, ChatMemberRestricted) and not left.is_member
    with pytest.raises(BadRequest, match=r"^User not found$"):
        await bot.get_chat_member(group["id"], 999_999)
    with pytest.raises(BadRequest, match=r"^Chat not found$"):
        await bot.get_chat_member(-100999, ALICE["id"])
