"""The Bot API calls every move makes (a board's edit, a board's posting, the long poll that
brings the tap), with plain JSON on both sides.

A load profile (`bench/load.py`, 1,000 chats with 200 taps at once) spent about a seventh of
the bot's time building a `Message` from each edit's answer, which nobody reads, another
seventh in `TelegramObject.to_dict` turning each keyboard into JSON, and a tenth writing
polled updates out again for the inbox. `Bot.do_api_request` is python-telegram-bot's public
way to call with JSON in and out: it goes through the same request object, flood gate and
errors as `edit_message_text`, and skips all three. PTB warns on each call that names an
endpoint it has a method for (it would rather build the objects); that warning, and only it,
is silenced here. The keyboard is still built as `InlineKeyboardMarkup` (the views' type);
it is written out here field by field.
"""

from __future__ import annotations

import warnings
from typing import Any

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, TelegramObject
from telegram.warnings import PTBUserWarning

from bot.telegram.flood_gate import Pace, pace_args

#: The endpoints called here, with JSON in and out.
EDIT, SEND, POLL = "editMessageText", "sendMessage", "getUpdates"

warnings.filterwarnings(
    "ignore",
    message=rf"Please use 'Bot\.({EDIT}|{SEND}|{POLL})' instead of",
    category=PTBUserWarning,
)

#: The fields of an `InlineKeyboardButton`, as the Bot API names them (its slots).
_BUTTON_FIELDS = tuple(name for name in InlineKeyboardButton.__slots__ if not name.startswith("_"))


def _json_value(value: object) -> object:
    return value.to_dict() if isinstance(value, TelegramObject) else value


def keyboard_json(keyboard: InlineKeyboardMarkup | None) -> dict[str, Any] | None:
    """The keyboard as the Bot API's JSON: each button's fields that are set."""
    if keyboard is None:
        return None
    return {
        "inline_keyboard": [
            [
                {
                    name: _json_value(value)
                    for name in _BUTTON_FIELDS
                    if (value := getattr(button, name)) is not None
                }
                for button in row
            ]
            for row in keyboard.inline_keyboard
        ]
    }


def _call(text: str, keyboard: InlineKeyboardMarkup | None, **where: object) -> dict[str, Any]:
    call: dict[str, Any] = {"text": text, **where}
    markup = keyboard_json(keyboard)
    if markup is not None:
        call["reply_markup"] = markup
    return call


async def edit_text(
    bot: Bot,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
    *,
    where: dict[str, Any],
    pace: Pace = Pace.PERSON,
) -> None:
    """editMessageText on a chat message (`chat_id`, `message_id`) or an inline message
    (`inline_message_id`). Raises as `Bot.edit_message_text` does."""
    await bot.do_api_request(
        EDIT, api_kwargs=_call(text, keyboard, **where), **pace_args(bot, pace)
    )


async def send_text(
    bot: Bot,
    chat_id: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
    *,
    reply_to: int | None = None,
    pace: Pace = Pace.PERSON,
) -> int:
    """sendMessage; the posted message's id. Raises as `Bot.send_message` does."""
    call = _call(text, keyboard, chat_id=chat_id)
    if reply_to is not None:
        call["reply_parameters"] = {"message_id": reply_to}
    sent = await bot.do_api_request(SEND, api_kwargs=call, **pace_args(bot, pace))
    return int(sent["message_id"])


async def poll_updates(bot: Bot, call: dict[str, Any], read_timeout: float) -> list[Any]:
    """getUpdates: the batch as JSON values, each still to be read as an update."""
    batch = await bot.do_api_request(POLL, api_kwargs=call, read_timeout=read_timeout)
    return batch if isinstance(batch, list) else []
