"""Telegram's Mini App `initData`, checked as Telegram documents it
(core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app).

The page hands the server `Telegram.WebApp.initData`, a query string such as
`auth_date=…&query_id=…&user={"id":…}&hash=<hex>`. Telegram signed it:

    secret_key       = HMAC_SHA256(key="WebAppData", message=bot_token)
    data_check_string = every field except `hash`, as `key=value`, sorted by key, joined by "\\n"
    hash             = hex(HMAC_SHA256(key=secret_key, message=data_check_string))

Only the bot (which holds the token) and Telegram can make a matching hash, so a good one says
Telegram vouches for the user. `auth_date` says when: an old initData (copied out of a page
long ago) is refused too. Nothing here does I/O; `now` is passed in.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

#: How old an initData may be (Telegram's clients make a new one each time the app opens).
MAX_AGE_SECONDS = 24 * 3600
#: A clock a little ahead of ours is no reason to refuse.
CLOCK_SKEW_SECONDS = 60
#: The largest user id taken: Telegram's have at most 52 significant bits
#: (core.telegram.org/bots/api#user), and the players table stores them as BIGINT.
MAX_USER_ID = 2**52 - 1


class InitDataError(Exception):
    """initData that proves nothing: missing, malformed, forged or stale."""


class InitDataTooOld(InitDataError):
    """Genuine initData, but signed too long ago (or ahead of our clock): the page has been
    open a day, and opening it again from the chat gives it a fresh one."""


@dataclass(frozen=True)
class WebAppUser:
    """The Telegram user an initData vouches for, and what it carried besides."""

    id: int
    name: str
    language_code: str | None
    username: str | None
    start_param: str | None
    auth_date: int


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def signature(fields: dict[str, str], bot_token: str) -> str:
    """The hash Telegram puts in an initData of these fields."""
    check = data_check_string(fields).encode()
    return hmac.new(secret_key(bot_token), check, hashlib.sha256).hexdigest()


def verify_init_data(
    init_data: str, bot_token: str, *, now: float, max_age: float = MAX_AGE_SECONDS
) -> WebAppUser:
    """The user of a genuine, fresh initData; raises InitDataError otherwise."""
    if not init_data:
        raise InitDataError("no initData")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("initData repeats a field")
    given = fields.get("hash", "")
    # Constant time: how much of a forged hash was right must not show in the answer's timing.
    if not hmac.compare_digest(given.encode(), signature(fields, bot_token).encode()):
        raise InitDataError("initData's hash does not match")
    try:
        auth_date = int(fields["auth_date"])
    except (KeyError, ValueError):
        raise InitDataError("initData has no auth_date") from None
    if not now - max_age <= auth_date <= now + CLOCK_SKEW_SECONDS:
        raise InitDataTooOld("initData is too old")
    return _user(fields, auth_date)


def _user(fields: dict[str, str], auth_date: int) -> WebAppUser:
    try:
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError, RecursionError):
        raise InitDataError("initData names no user") from None
    # A user id is a positive JSON integer ("at most 52 significant bits", Telegram says) that
    # the players table's BIGINT holds: anything else is refused here, before any database.
    if not isinstance(user_id, int) or isinstance(user_id, bool) or not 0 < user_id <= MAX_USER_ID:
        raise InitDataError("initData's user id is not a Telegram user id")
    name = " ".join(str(user.get(k) or "") for k in ("first_name", "last_name")).strip()
    return WebAppUser(
        id=user_id,
        name=name or str(user_id),
        language_code=_text(user.get("language_code")),
        username=_text(user.get("username")),
        start_param=fields.get("start_param") or None,
        auth_date=auth_date,
    )


def _text(value: object) -> str | None:
    """A string field of the user, None when missing, empty or not a string at all."""
    return value if isinstance(value, str) and value else None
