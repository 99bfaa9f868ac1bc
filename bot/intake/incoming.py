"""The one door for updates from Telegram: an update's JSON, read into PTB's `Update` after
checking what the database cannot take.

Every number in an update that the bot may store (update, chat, user and message ids) goes
into a signed 64-bit column (`bot.games.db.models`: BIGINT). Telegram's ids fit, but a
well-signed webhook request, or a Bot API server of our own, may carry any integer: a chat id
of 2⁷⁰ parses (Python's ints have no bound) and then fails deep in a handler with an
OverflowError from the database driver. `read_update` refuses such an update here, once, for
both ways updates arrive (`bot.intake.web` for the webhook, `bot.intake.polling`), before
it is stored in the inbox or handled: the caller logs one line and drops it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from telegram import Bot, Update

from bot.telegram.tapped_keyboard import defer_keyboard

#: What a BIGINT column holds (PostgreSQL's bigint, SQLite's INTEGER).
SMALLEST, LARGEST = -(2**63), 2**63 - 1
#: The kinds of update the bot asks for (`bot.app.ALLOWED_UPDATES`), the busiest first.
KINDS = (Update.CALLBACK_QUERY, Update.MESSAGE, Update.INLINE_QUERY, Update.MY_CHAT_MEMBER)


class NotAnUpdate(ValueError):
    """What Telegram sent cannot be handled; the message says why in a few words, without
    the update's content (it may be a user's text)."""


class OutOfRange(NotAnUpdate):
    """An update, but with a number no BIGINT holds: dropped (sent again, it would be
    dropped again)."""


def out_of_range(data: object, path: str = "update") -> str | None:
    """The path of the first integer in `data` (JSON values) that no BIGINT column holds,
    e.g. ``update.message.chat.id``; None if there is none. (The path is built only once one
    is found: every update is walked, and almost none has one.)"""
    if not _any_out_of_range(data):
        return None
    if isinstance(data, int) and not isinstance(data, bool):
        return path
    items: Any = data.items() if isinstance(data, Mapping) else enumerate(data)  # type: ignore[arg-type]
    for key, value in items:
        if _any_out_of_range(value):
            return out_of_range(
                value, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]"
            )
    return None  # pragma: no cover - _any_out_of_range found one above


def _any_out_of_range(data: object) -> bool:
    if isinstance(data, bool):
        return False
    if isinstance(data, int):
        return not SMALLEST <= data <= LARGEST
    if isinstance(data, Mapping):
        return any(_any_out_of_range(value) for value in data.values())
    if isinstance(data, list):
        return any(_any_out_of_range(value) for value in data)
    return False


def check(data: object) -> dict[str, Any]:
    """`data` (a decoded JSON body) if it may be an update the database can hold; raises
    NotAnUpdate when it is no JSON object, OutOfRange when it carries a number no BIGINT
    holds."""
    if not isinstance(data, dict):
        raise NotAnUpdate("an update is a JSON object")
    try:
        where = out_of_range(data)
    except RecursionError:
        raise NotAnUpdate("nested too deep") from None
    if where is not None:
        raise OutOfRange(f"{where} is out of range")
    return data


def read_update(data: object, bot: Bot) -> Update:
    """`data` (a decoded JSON body) as an Update; raises NotAnUpdate when it is no update,
    OutOfRange when it carries a number the database cannot hold."""
    data = check(data)
    try:
        # The tapped message's keyboard is read only if a handler asks (`tapped_keyboard`).
        update = Update.de_json(defer_keyboard(data), bot)
    except (ValueError, TypeError, KeyError, AttributeError, ArithmeticError) as error:
        # A body that is no update (`"message": "x"`, a date of 10²⁰): PTB fails in these
        # ways (RecursionError is a RuntimeError, not caught here: out_of_range met it first).
        raise NotAnUpdate(type(error).__name__) from None
    if not isinstance(update.update_id, int):
        raise NotAnUpdate("no update_id")
    return update


def update_kind(update: Update) -> str:
    """What an update carries (`callback_query`, `message`, …), as the metrics name it;
    `other` for a kind the bot does not ask for."""
    for kind in KINDS:
        if getattr(update, kind) is not None:
            return kind
    return "other"
