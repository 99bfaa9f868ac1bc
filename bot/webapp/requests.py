"""What the API reads of a request, and how it refuses one: the user its initData vouches for
(401 otherwise, saying whether the page's sign-in is too old or no Telegram sign-in at all),
its JSON body (400 otherwise), an error answer in the page's terms."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from aiohttp import web

from bot.games.model import MoveStatus, PlayerInfo
from bot.webapp.init_data import InitDataError, InitDataTooOld, WebAppUser, verify_init_data
from bot.webapp.state import PageStatus

log = logging.getLogger(__name__)


def error(status: int, message: str, refusal: str | None = None) -> web.HTTPException:
    """An error answer: `message` for people reading logs, `refusal` (a MoveStatus, or a
    PageStatus) for the page to put in the user's words."""
    body = json.dumps({"error": message, "status": refusal})
    kinds = {
        400: web.HTTPBadRequest,
        401: web.HTTPUnauthorized,
        403: web.HTTPForbidden,
        409: web.HTTPConflict,
        429: web.HTTPTooManyRequests,
    }
    kind = kinds.get(status, web.HTTPNotFound)
    return kind(text=body, content_type="application/json")


def signed_in_user(request: web.Request, bot_token: str) -> WebAppUser:
    """The user the request's initData vouches for; 401 otherwise: `expired` for a genuine
    one that is too old (the page was open a day: opened again, it works), `not_telegram`
    for any other (forged, another bot's, malformed, none: opening it again changes nothing)."""
    header = request.headers.get("Authorization", "")
    scheme, _, init_data = header.partition(" ")
    if scheme.lower() != "tma":
        raise error(401, "no initData", PageStatus.NOT_TELEGRAM)
    try:
        return verify_init_data(init_data, bot_token, now=time.time())
    except InitDataError as refused:
        # Its reason only (fixed words): nothing of the initData itself.
        log.info("refused a Mini App request: %s", refused)
        stale = isinstance(refused, InitDataTooOld)
        raise error(
            401, str(refused), PageStatus.EXPIRED if stale else PageStatus.NOT_TELEGRAM
        ) from None


async def body_of(request: web.Request) -> dict[str, Any]:
    """The request's JSON object; 400 for anything else (a body nested too deep for the
    decoder, 100,000 `[` say, included: nothing a user sends may crash the server)."""
    try:
        body = await request.json()
    except (ValueError, RecursionError):
        raise error(400, "the body is not JSON", MoveStatus.INVALID) from None
    if not isinstance(body, dict):
        raise error(400, "the body is not a JSON object", MoveStatus.INVALID)
    return body


def player_of(user: WebAppUser) -> PlayerInfo:
    return PlayerInfo(user.id, user.name, user.language_code, user.username)
