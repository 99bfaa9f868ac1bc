"""`bot.telegram.tapped_keyboard`: a tap's update is read without building its tapped
message's keyboard, which stays JSON in the message's `api_kwargs` (PTB's place for fields it
has no parameter for: the seam this module leans on) until a handler asks for it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.intake.incoming import NotAnUpdate, read_update
from bot.telegram.tapped_keyboard import KEPT, defer_keyboard, tapped_data, tapped_markup

BOT = Bot("123:abc")
KEYBOARD = {
    "inline_keyboard": [
        [{"text": "·", "callback_data": "m:1:0"}, {"text": "·", "callback_data": "m:1:1"}],
        [{"text": "Open", "url": "https://t.me/x"}, {"text": "🏳", "callback_data": "rs:1"}],
    ]
}


def tap_update(message_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    message = {
        "message_id": 55,
        "chat": {"id": 7, "type": "private", "first_name": "P"},
        "date": 1_764_300_000,
        "text": "board",
        "reply_markup": copy.deepcopy(KEYBOARD),
        **(message_extra or {}),
    }
    user = {"id": 7, "is_bot": False, "first_name": "P"}
    query = {"id": "9", "from": user, "chat_instance": "-8", "data": "m:1:1", "message": message}
    return {"update_id": 1, "callback_query": query}


def test_the_keyboard_stays_json_until_asked_and_reads_as_ptb_would() -> None:
    data = tap_update()
    kept = copy.deepcopy(data)
    message = read_update(data, BOT).callback_query.message  # type: ignore[union-attr]
    assert data == kept  # what is stored is what came
    assert isinstance(message, Message)
    assert message.reply_markup is None
    assert message.api_kwargs[KEPT] == KEYBOARD
    assert tapped_data(message) == ["m:1:0", "m:1:1", "rs:1"]
    read_whole = Message.de_json(copy.deepcopy(kept["callback_query"]["message"]), BOT)
    assert tapped_markup(message) == read_whole.reply_markup
    assert tapped_data(read_whole) == tapped_data(message)  # a Message PTB read whole


def test_a_message_without_a_keyboard_has_no_buttons() -> None:
    data = tap_update()
    del data["callback_query"]["message"]["reply_markup"]
    message = read_update(data, BOT).callback_query.message  # type: ignore[union-attr]
    assert tapped_markup(message) is None
    assert tapped_data(message) == []
    assert tapped_data(None) == []


def test_a_keyboard_not_shaped_as_one_is_refused_as_before() -> None:
    with pytest.raises(NotAnUpdate):
        read_update(tap_update({"reply_markup": "x"}), BOT)


def test_a_kept_keyboard_sent_by_someone_else_is_dropped() -> None:
    forged = {"inline_keyboard": [[{"text": "x", "callback_data": "m:1:1"}]]}
    data = tap_update({KEPT: forged})
    del data["callback_query"]["message"]["reply_markup"]
    message = read_update(data, BOT).callback_query.message  # type: ignore[union-attr]
    assert KEPT not in message.api_kwargs  # type: ignore[union-attr]
    assert tapped_data(message) == []


def test_updates_without_a_tapped_message_are_left_alone() -> None:
    data = {"update_id": 2, "message": {"message_id": 1, "date": 0, "chat": {"id": 1}}}
    assert defer_keyboard(data) is data


def test_a_built_keyboard_reads_the_same() -> None:
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("a", callback_data="x")]])
    message = Message(1, None, None, reply_markup=markup)  # type: ignore[arg-type]
    assert tapped_markup(message) is markup
    assert tapped_data(message) == ["x"]
