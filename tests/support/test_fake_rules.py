"""The fake Bot API refuses what Telegram refuses: one test per rule, each naming the sentence of
the Bot API documentation (https://core.telegram.org/bots/api) it comes from, each checking the
bad request is refused with Telegram's error text and the nearest good one is taken.

Requests go over HTTP as JSON, the way any client sends them, so shapes no library would build
(an empty keyboard, a button with two kinds) are tried too."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from PIL import Image

from tests.support import telegram_rules as rules
from tests.support.fake_telegram import QUERY_INVALID, FakeTelegram
from tests.support.time_scale import TELEGRAM_CLOCK

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
GROUP = FakeTelegram.group_chat(-100200, "Friends")
CELL = {"text": "·", "callback_data": "m:1:0:0"}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def fake(clock: Clock) -> AsyncIterator[FakeTelegram]:
    # Telegram's own clock: the rules are checked with Telegram's numbers, on a clock the
    # tests move by hand.
    async with FakeTelegram(clock=clock, time_scale=TELEGRAM_CLOCK) as server:
        server.send_text(ALICE, "/start")  # Alice started the bot: her private chat is open
        server.add_chat(GROUP)
        yield server


@pytest.fixture
async def api(fake: FakeTelegram) -> AsyncIterator[Any]:
    async with aiohttp.ClientSession() as session:

        async def call(method: str, **params: Any) -> dict[str, Any]:
            url = f"{fake.base_url}{fake.token}/{method}"
            async with session.post(url, json=params) as response:
                return await response.json()

        yield call


def refused(envelope: dict[str, Any], description: str, code: int = 400) -> bool:
    return envelope == {"ok": False, "error_code": code, "description": description}


def markup(*rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"inline_keyboard": list(rows)}


async def board(api: Any, chat_id: int = ALICE["id"]) -> int:
    sent = await api("sendMessage", chat_id=chat_id, text="board", reply_markup=markup([CELL]))
    assert sent["ok"], sent
    return sent["result"]["message_id"]


# ---------------------------------------------------------------------- inline keyboards


@pytest.mark.parametrize(
    ("rows", "description"),
    [
        # "reply_markup: A JSON-serialized object for an inline keyboard": no buttons is none.
        ([], "Bad Request: can't parse reply keyboard markup JSON object"),
        ([[]], "Bad Request: can't parse reply keyboard markup JSON object"),
        # Telegram's limits on an inline keyboard: 8 buttons in a row, 100 in all.
        ([[CELL] * 9], "Bad Request: BUTTONS_TOO_MUCH"),
        ([[CELL] * 5] * 21, "Bad Request: BUTTONS_TOO_MUCH"),
        # InlineKeyboardButton text: "Label text on the button".
        ([[{"text": " ", "callback_data": "x"}]], "Bad Request: BUTTON_TEXT_INVALID"),
        # InlineKeyboardButton: "You must use exactly one of the optional fields."
        (
            [[{"text": "a", "url": "https://t.me", "callback_data": "x"}]],
            "Bad Request: can't parse inline keyboard button: exactly one of its fields is "
            "expected",
        ),
        # url: "HTTP or tg:// URL to be opened when the button is pressed."
        ([[{"text": "a", "url": "notaurl"}]], "Bad Request: BUTTON_URL_INVALID"),
        # callback_data: "Data to be sent in a callback query ..., 1-64 bytes"
        ([[{"text": "a", "callback_data": "x" * 65}]], "Bad Request: BUTTON_DATA_INVALID"),
        # web_app url: "An HTTPS URL of a Web App to be opened"
        (
            [[{"text": "a", "web_app": {"url": "http://example.org/app"}}]],
            "Bad Request: BUTTON_URL_INVALID",
        ),
    ],
    ids=[
        "empty",
        "empty-row",
        "9-in-a-row",
        "101-buttons",
        "no-text",
        "two-kinds",
        "bad-url",
        "long-data",
        "web-app-http",
    ],
)
async def test_an_inline_keyboard_telegram_cannot_take_is_refused(
    fake: FakeTelegram, api: Any, rows: list[list[dict[str, Any]]], description: str
) -> None:
    sent = await api("sendMessage", chat_id=ALICE["id"], text="x", reply_markup=markup(*rows))
    assert refused(sent, description)
    assert fake.bot_messages(ALICE["id"]) == []
    good = markup([CELL] * 8, *([[CELL] * 8] * 11), [CELL, {"text": "a", "url": "tg://resolve"}])
    assert (await api("sendMessage", chat_id=ALICE["id"], text="x", reply_markup=good))["ok"]


async def test_an_edit_with_an_empty_keyboard_is_refused_and_one_without_removes_it(
    fake: FakeTelegram, api: Any
) -> None:
    # What PTB sends for InlineKeyboardMarkup([]): Telegram cannot parse it.
    message_id = await board(api)
    edit = {"chat_id": ALICE["id"], "message_id": message_id, "text": "closed"}
    answer = await api("editMessageText", **edit, reply_markup={})
    assert refused(answer, rules.CANT_PARSE_INLINE_MARKUP)
    assert (await api("editMessageText", **edit))["ok"]
    assert fake.messages[(ALICE["id"], message_id)].reply_markup is None


@pytest.mark.parametrize("value", [{}, {"keyboard": "garbage"}, "not json", {"unknown": True}])
async def test_a_malformed_reply_markup_is_refused_not_dropped(
    fake: FakeTelegram, api: Any, value: Any
) -> None:
    # sendMessage reply_markup: "Additional interface options. A JSON-serialized object for an
    # inline keyboard, custom reply keyboard, instructions to remove a reply keyboard or to
    # force a reply from the user."
    sent = await api("sendMessage", chat_id=ALICE["id"], text="x", reply_markup=value)
    assert refused(sent, rules.CANT_PARSE_REPLY_MARKUP)
    removal = {"remove_keyboard": True}
    assert (await api("sendMessage", chat_id=ALICE["id"], text="x", reply_markup=removal))["ok"]


async def test_web_app_buttons_only_in_private_chats(fake: FakeTelegram, api: Any) -> None:
    # InlineKeyboardButton web_app: "Available only in private chats between a user and the bot."
    web_app = markup([{"text": "Open", "web_app": {"url": "https://example.org/app/"}}])
    in_group = await api("sendMessage", chat_id=GROUP["id"], text="x", reply_markup=web_app)
    assert refused(in_group, "Bad Request: BUTTON_TYPE_INVALID")
    assert (await api("sendMessage", chat_id=ALICE["id"], text="x", reply_markup=web_app))["ok"]


# ---------------------------------------------------------------------- callback queries


async def test_a_tap_is_answered_within_the_deadline_only(
    fake: FakeTelegram, api: Any, clock: Clock
) -> None:
    # Telegram waits about 15 s for the answer (the client's progress bar), then refuses it.
    message_id = await board(api)
    late = fake.tap(ALICE, (ALICE["id"], message_id), "m:1:0:0")
    on_time = fake.tap(ALICE, (ALICE["id"], message_id), "m:1:0:0")
    clock.now += 15.0
    assert (await api("answerCallbackQuery", callback_query_id=on_time))["ok"]
    clock.now += 0.1
    assert refused(await api("answerCallbackQuery", callback_query_id=late), QUERY_INVALID)


async def test_a_popup_has_at_most_200_characters(fake: FakeTelegram, api: Any) -> None:
    # answerCallbackQuery text: "Text of the notification ..., 0-200 characters"
    message_id = await board(api)
    first = fake.tap(ALICE, (ALICE["id"], message_id), "x")
    second = fake.tap(ALICE, (ALICE["id"], message_id), "x")
    too_long = await api("answerCallbackQuery", callback_query_id=first, text="y" * 201)
    assert refused(too_long, "Bad Request: MESSAGE_TOO_LONG")
    assert (await api("answerCallbackQuery", callback_query_id=second, text="y" * 200))["ok"]


# ---------------------------------------------------------------------- photos


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4)).save(out, "PNG")
    return out.getvalue()


async def send_photo(fake: FakeTelegram, data: bytes, caption: str) -> dict[str, Any]:
    form = aiohttp.FormData()
    form.add_field("chat_id", str(ALICE["id"]))
    form.add_field("caption", caption)
    form.add_field("photo", data, filename="card.png", content_type="image/png")
    async with aiohttp.ClientSession() as session:
        url = f"{fake.base_url}{fake.token}/sendPhoto"
        async with session.post(url, data=form) as response:
            return await response.json()


async def test_a_photo_is_a_picture_with_a_caption_of_at_most_1024_characters(
    fake: FakeTelegram,
) -> None:
    # sendPhoto caption: "Photo caption ..., 0-1024 characters after entities parsing"
    assert refused(
        await send_photo(fake, png(), "c" * 1025), "Bad Request: message caption is too long"
    )
    # A file that is no picture: Telegram cannot process it.
    assert refused(
        await send_photo(fake, b"not a picture", "c"), "Bad Request: IMAGE_PROCESS_FAILED"
    )
    assert (await send_photo(fake, png(), "c" * 1024))["ok"]


async def test_the_text_of_a_photo_cannot_be_edited(fake: FakeTelegram, api: Any) -> None:
    # editMessageText: "Use this method to edit text and game messages."; a photo has a caption.
    photo = (await send_photo(fake, png(), "card"))["result"]["message_id"]
    edit = await api("editMessageText", chat_id=ALICE["id"], message_id=photo, text="new")
    assert refused(edit, "Bad Request: there is no text in the message to edit")
    assert (
        await api("editMessageText", chat_id=ALICE["id"], message_id=await board(api), text="new")
    )["ok"]


def gif() -> bytes:
    out = io.BytesIO()
    frames = [Image.new("RGB", (4, 4), colour) for colour in ("red", "blue")]
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100)
    return out.getvalue()


async def send_animation(fake: FakeTelegram, data: bytes, caption: str) -> dict[str, Any]:
    form = aiohttp.FormData()
    form.add_field("chat_id", str(ALICE["id"]))
    form.add_field("caption", caption)
    form.add_field("animation", data, filename="game.gif", content_type="image/gif")
    async with aiohttp.ClientSession() as session:
        url = f"{fake.base_url}{fake.token}/sendAnimation"
        async with session.post(url, data=form) as response:
            return await response.json()


async def test_an_animation_is_a_gif_or_mp4_with_a_caption_and_no_text_to_edit(
    fake: FakeTelegram, api: Any
) -> None:
    # sendAnimation: "Animation to send" (GIF or H.264/MPEG-4 AVC video without sound),
    # "Animation caption …, 0-1024 characters after entities parsing".
    assert refused(await send_animation(fake, png(), "c"), "Bad Request: wrong file type")
    assert refused(
        await send_animation(fake, gif(), "c" * 1025), "Bad Request: message caption is too long"
    )
    sent = await send_animation(fake, gif(), "game")
    assert sent["ok"] and sent["result"]["animation"]["mime_type"] == "image/gif"
    # "For backward compatibility, when this field is set, the document field will also be set"
    assert sent["result"]["document"]["file_id"] == sent["result"]["animation"]["file_id"]
    assert sent["result"]["caption"] == "game" and "text" not in sent["result"]
    edit = await api(
        "editMessageText", chat_id=ALICE["id"], message_id=sent["result"]["message_id"], text="x"
    )
    assert refused(edit, "Bad Request: there is no text in the message to edit")


# ---------------------------------------------------------------------- who the bot may write to


async def test_nobody_hears_from_the_bot_before_they_start_it(fake: FakeTelegram, api: Any) -> None:
    # Bots FAQ: "Bots can't initiate conversations with users. A user must either add them to a
    # group or send them a message first."
    fake.send_text(BOB, "hi all", chat=GROUP)  # Bob is known from the group only
    to_bob = await api("sendMessage", chat_id=BOB["id"], text="hello")
    assert refused(to_bob, "Forbidden: bot can't initiate conversation with a user", 403)
    fake.send_text(BOB, "/start")
    assert (await api("sendMessage", chat_id=BOB["id"], text="hello"))["ok"]


@pytest.mark.parametrize(
    ("chat", "status", "description"),
    [
        (GROUP, "kicked", "Forbidden: bot was kicked from the group chat"),
        (GROUP, "left", "Forbidden: bot is not a member of the group chat"),
        (FakeTelegram.private_chat(ALICE), "kicked", "Forbidden: bot was blocked by the user"),
    ],
    ids=["kicked", "left", "blocked"],
)
async def test_a_chat_that_removed_the_bot_is_closed_to_it(
    fake: FakeTelegram, api: Any, chat: dict[str, Any], status: str, description: str
) -> None:
    fake.membership_changed(chat, ALICE, "member", status)
    assert refused(await api("sendMessage", chat_id=chat["id"], text="x"), description, 403)
    fake.membership_changed(chat, ALICE, status, "member")
    assert (await api("sendMessage", chat_id=chat["id"], text="x"))["ok"]


# ---------------------------------------------------------------------- inline mode


def article(result_id: str = "a", text: str = "hi", **extra: Any) -> dict[str, Any]:
    content = {"message_text": text}
    return {
        "type": "article",
        "id": result_id,
        "title": "t",
        "input_message_content": content,
        **extra,
    }


@pytest.mark.parametrize(
    ("results", "extra", "description"),
    [
        # answerInlineQuery results: "No more than 50 results per query are allowed."
        ([article(str(i)) for i in range(51)], {}, "Bad Request: RESULTS_TOO_MUCH"),
        # InlineQueryResultArticle id: "Unique identifier for this result, 1-64 Bytes"
        ([article("i" * 65)], {}, "Bad Request: RESULT_ID_INVALID"),
        # next_offset: "Offset length can't exceed 64 bytes."
        ([article()], {"next_offset": "o" * 65}, "Bad Request: NEXT_OFFSET_INVALID"),
        # InlineQueryResult: one of the documented result types.
        (
            [{**article(), "type": "poem"}],
            {},
            "Bad Request: can't parse inline query result: unsupported result type",
        ),
        # InputTextMessageContent message_text: "Text of the message to be sent, 1-4096 characters"
        ([article(text=" ")], {}, "Bad Request: MESSAGE_EMPTY"),
        # An inline message is in no private chat: no web_app button there.
        (
            [article(reply_markup=markup([{"text": "a", "web_app": {"url": "https://e.org"}}]))],
            {},
            "Bad Request: BUTTON_TYPE_INVALID",
        ),
    ],
    ids=["51-results", "long-id", "long-offset", "unknown-type", "empty-text", "web-app"],
)
async def test_inline_answers_keep_the_limits(
    fake: FakeTelegram, api: Any, results: list[Any], extra: dict[str, Any], description: str
) -> None:
    query = fake.inline_query(ALICE, "")
    answer = await api("answerInlineQuery", inline_query_id=query, results=results, **extra)
    assert refused(answer, description)
    good = [article(str(i), reply_markup=markup([CELL])) for i in range(50)]
    ok = await api("answerInlineQuery", inline_query_id=query, results=good, next_offset="o" * 64)
    assert ok["ok"]


# ---------------------------------------------------------------------- the bot's profile


@pytest.mark.parametrize(
    ("method", "params", "description"),
    [
        # setMyCommands commands: "At most 100 commands can be specified."
        (
            "setMyCommands",
            {"commands": [{"command": f"c{i}", "description": "d"} for i in range(101)]},
            "Bad Request: BOT_COMMANDS_TOO_MUCH",
        ),
        # BotCommand description: "Description of the command; 1-256 characters."
        (
            "setMyCommands",
            {"commands": [{"command": "start", "description": "d" * 257}]},
            "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID",
        ),
        # setMyDescription description: "New bot description; 0-512 characters."
        ("setMyDescription", {"description": "d" * 513}, "Bad Request: BOT_DESCRIPTION_INVALID"),
        # setMyShortDescription short_description: "New short description for the bot;
        # 0-120 characters."
        (
            "setMyShortDescription",
            {"short_description": "d" * 121},
            "Bad Request: BOT_SHORT_DESCRIPTION_INVALID",
        ),
    ],
    ids=["101-commands", "long-command-description", "long-description", "long-short"],
)
async def test_the_profile_keeps_the_limits(
    fake: FakeTelegram, api: Any, method: str, params: dict[str, Any], description: str
) -> None:
    assert refused(await api(method, **params), description)
    fitting = {
        key: (value[:100] if isinstance(value, list) else value[: len(value) - 1])
        for key, value in params.items()
    }
    if method == "setMyCommands" and len(params["commands"]) == 1:
        fitting = {"commands": [{"command": "start", "description": "d" * 256}]}
    assert (await api(method, **fitting))["ok"]


# ---------------------------------------------------------------------- "not modified"


@pytest.mark.parametrize(
    ("first", "again"),
    [("<b>a</b> &amp; b", "<strong>a</strong> &#38; b"), ("<i>x</i>", "<em>x</em>")],
)
async def test_not_modified_is_judged_on_what_the_user_sees(
    fake: FakeTelegram, api: Any, first: str, again: str
) -> None:
    # editMessageText fails when "specified new message content and reply markup are exactly
    # the same as a current content and reply markup of the message": the content, not the
    # HTML that produced it.
    sent = await api("sendMessage", chat_id=ALICE["id"], text=first, parse_mode="HTML")
    edit = {
        "chat_id": ALICE["id"],
        "message_id": sent["result"]["message_id"],
        "parse_mode": "HTML",
    }
    same = await api("editMessageText", **edit, text=again)
    assert refused(
        same,
        "Bad Request: message is not modified: specified new message content "
        "and reply markup are exactly the same as a current content and reply "
        "markup of the message",
    )
    assert (await api("editMessageText", **edit, text=again.replace("b", "u", 1) + "!"))["ok"]


# ---------------------------------------------------------------------- flood limits, logging


async def test_flood_limits_are_on_by_default_and_refill_by_the_clock(
    fake: FakeTelegram, api: Any, clock: Clock
) -> None:
    # Bots FAQ: "your bot will not be able to send more than 20 messages per minute to the
    # same group."
    for _ in range(20):
        assert (await api("sendMessage", chat_id=GROUP["id"], text="x"))["ok"]
    too_many = await api("sendMessage", chat_id=GROUP["id"], text="x")
    assert too_many["error_code"] == 429 and too_many["parameters"] == {"retry_after": 3}
    clock.now += 3.0  # one token back: 20 a minute is one every 3 s
    assert (await api("sendMessage", chat_id=GROUP["id"], text="x"))["ok"]
    assert (await api("sendMessage", chat_id=GROUP["id"], text="x"))["error_code"] == 429


async def test_shortened_windows_keep_the_counts(clock: Clock) -> None:
    # The default test run shortens the windows (tests.support.time_scale): a group's 20 a
    # minute become 20 in 6 s, and the 21st is still refused.
    async with FakeTelegram(clock=clock, time_scale=0.1) as fake, aiohttp.ClientSession() as http:
        fake.add_chat(GROUP)
        url = f"{fake.base_url}{fake.token}/sendMessage"

        async def send() -> dict[str, Any]:
            async with http.post(url, json={"chat_id": GROUP["id"], "text": "x"}) as response:
                return await response.json()

        for _ in range(20):
            assert (await send())["ok"]
        too_many = await send()
        assert too_many["error_code"] == 429 and too_many["parameters"] == {"retry_after": 1}
        clock.now += 0.29  # a token comes back every 0.3 s
        assert (await send())["error_code"] == 429
        clock.now += 0.02
        assert (await send())["ok"]
        assert (await send())["error_code"] == 429


async def test_every_refusal_is_logged_with_its_rule(
    fake: FakeTelegram, api: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="fake_telegram"):
        await api("sendMessage", chat_id=ALICE["id"], text="x", reply_markup={})
    assert [r.getMessage() for r in caplog.records if r.name == "fake_telegram"] == [
        f"refused sendMessage: 400 {rules.CANT_PARSE_REPLY_MARKUP}"
    ]
