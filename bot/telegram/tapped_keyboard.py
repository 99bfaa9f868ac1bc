"""The keyboard of the message a button was tapped on, read only when a handler asks.

Every tap's update carries the tapped message whole, with its inline keyboard: a board's has a
button a cell. `Update.de_json` built an `InlineKeyboardButton` for each, more than half of
reading a tap's update (about 0.25 ms of a 3×3 board's 0.45 ms), and a move's tap needs only to
know whether its data is one of the buttons' (`tapped_data`); a menu's tap needs the keyboard
itself, and builds it then (`tapped_markup`).

So `defer_keyboard` takes the keyboard out of the update's JSON before PTB reads it, under
`KEPT`: PTB keeps a field it has no parameter for in the object's `api_kwargs` (its documented
place for them), here the tapped `Message`'s, as JSON. Both readers take a `Message` whose
`reply_markup` is set too (one PTB read whole: tests, the inbox's recovered updates).
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardMarkup, MaybeInaccessibleMessage, Message

#: The tapped message's keyboard as JSON, in its `api_kwargs`: no field Telegram sends.
KEPT = "deferred_reply_markup"


def defer_keyboard(data: dict[str, Any]) -> dict[str, Any]:
    """An update's JSON with its tapped message's keyboard moved under `KEPT`, copied along
    the way (`data` itself is stored as it came). A keyboard not shaped as the Bot API's is
    left for PTB to read (and refuse); a `KEPT` sent by someone else is dropped."""
    query = data.get("callback_query")
    message = query.get("message") if isinstance(query, dict) else None
    if not isinstance(message, dict) or not ("reply_markup" in message or KEPT in message):
        return data
    message = dict(message)
    message.pop(KEPT, None)
    if _rows(message.get("reply_markup")) is not None:
        message[KEPT] = message.pop("reply_markup")
    return {**data, "callback_query": {**query, "message": message}}  # type: ignore[dict-item]


def tapped_markup(message: MaybeInaccessibleMessage | None) -> InlineKeyboardMarkup | None:
    """The keyboard of the message a button was tapped on, as Telegram sent it: none for an
    InaccessibleMessage (one Telegram no longer shows the bot), which carries no markup."""
    if not isinstance(message, Message):
        return None
    if message.reply_markup is not None:
        return message.reply_markup
    kept = message.api_kwargs.get(KEPT)
    if not isinstance(kept, dict) or _rows(kept) is None:
        return None
    return InlineKeyboardMarkup.de_json(kept, message.get_bot())


def tapped_data(message: MaybeInaccessibleMessage | None) -> list[str]:
    """The callback data of the tapped message's buttons, row by row (none for a message
    without a keyboard, or an InaccessibleMessage)."""
    if not isinstance(message, Message):
        return []
    markup = message.reply_markup
    if markup is not None:
        buttons: Any = (button.callback_data for row in markup.inline_keyboard for button in row)
        return [data for data in buttons if isinstance(data, str)]
    rows = _rows(message.api_kwargs.get(KEPT)) or []
    return [
        data
        for row in rows
        for button in row
        if isinstance(data := button.get("callback_data"), str)
    ]


def _rows(markup: Any) -> list[list[dict[str, Any]]] | None:
    """The rows of an inline keyboard's JSON; None if it is not shaped as one."""
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    if not isinstance(rows, list):
        return None
    if all(isinstance(row, list) and all(isinstance(b, dict) for b in row) for row in rows):
        return rows
    return None
