"""Bot API requests that survive server errors and network blips, and never do a thing twice.

`RetryingRequest` is our aiohttp transport (`bot.telegram.http_transport`) with a retry loop
around each HTTP round trip; `RetryingHTTPXRequest` is the same loop around PTB's own
`HTTPXRequest` (the benchmark's bare-PTB ceiling uses it):

* 429 Too Many Requests with `parameters.retry_after` N: wait N seconds, then send again (so a
  user's move is shown even when Telegram throttles the bot). N above `max_retry_after` is not
  waited for: the error goes to the caller at once. With `retry_flood_limits=False` every 429
  goes to the caller: the bot's rate limiter (`bot.telegram.flood_gate`) waits it out, and
  closes the chat meanwhile.
* 5xx answers, and network failures before the request left (connection refused, connect or
  pool timeout): send again after 0.5, 1, 2, 4 … seconds (`backoff_base` doubled each time).
* A network failure after the request may have reached Telegram (read or write timeout,
  connection dropped before the answer): sent again only for methods that do the same thing
  twice as once (get*, edit*, set*, delete*, answer*). A method that creates something
  (sendMessage, copyMessage, …) raises `OutcomeUnknown` instead: sending it again could post a
  second board. When such a repeat is refused as already done (400 "message is not modified",
  "message to delete not found", "query is too old"), the first try did it: that is success.
* Anything else (200s, 400 Bad Request, 401, 403 Forbidden, 404, 409) is final at once.

A caller that must know whether a call went unanswered on the way (a board edit: the unanswered
try may still land after a newer edit, so the board is in doubt) watches it with
`watch_unanswered()`.

After `max_attempts` sends in all, the last answer or error goes to the caller, exactly as PTB
would have reported it without retries. Retries are logged at WARNING with the method name only:
request URLs contain the bot token and are never logged.
"""

from __future__ import annotations

import abc
import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import httpx
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from bot.telegram import http_transport
from bot.telegram.http_transport import AiohttpRequest
from bot.telegram.request_timeouts import Timeout
from bot.telemetry.metrics import NO_CONNECTION, TIMEOUT, Metrics, answer_outcome

log = logging.getLogger(__name__)

#: Waits for a retry; tests may pass a recording stand-in.
Sleep = Callable[[float], Awaitable[Any]]

#: Methods that do the same thing when carried out twice: safe to send again blind.
REPEATABLE_PREFIXES = ("get", "edit", "set", "delete", "answer")
#: Client failures that happen before the request leaves: Telegram surely never saw it.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, *http_transport.NOT_SENT)
#: What Telegram answers a repeat of a call that the first, unanswered try already did.
ALREADY_DONE = ("message is not modified", "message to delete not found", "query is too old")
#: The answer that stands for such a repeat: the call succeeded (its result is not known).
DONE = (200, b'{"ok":true,"result":true}')


class OutcomeUnknown(NetworkError):
    """A call that creates something was sent, but no answer came (read timeout, connection
    dropped): it may have been carried out. Not retried, so that nothing is done twice."""


@dataclass
class Unanswered:
    """The Bot API methods of the calls watched that went unanswered at least once (read
    timeout, connection dropped after sending): carried out or not, and maybe later."""

    endpoints: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.endpoints)


_watching: ContextVar[Unanswered | None] = ContextVar("unanswered_calls", default=None)


@contextmanager
def watch_unanswered() -> Iterator[Unanswered]:
    """Record the calls made in this block (by this task) that went unanswered on the way."""
    watched = Unanswered()
    token = _watching.set(watched)
    try:
        yield watched
    finally:
        _watching.reset(token)


def _note_unanswered(endpoint: str) -> None:
    watched = _watching.get()
    if watched is not None:
        watched.endpoints.append(endpoint)


def is_repeatable(endpoint: str) -> bool:
    """Whether sending this Bot API method twice does no more than sending it once."""
    return endpoint.startswith(REPEATABLE_PREFIXES)


def surely_not_sent(error: NetworkError) -> bool:
    """Whether the request failed before it left (so Telegram cannot have carried it out)."""
    return isinstance(error.__cause__, NOT_SENT)


class Retrying(BaseRequest):
    """A transport's `do_request` that retries 429 (after `retry_after`), 5xx and network
    errors, and never sends again a call that may have created something already. Mixed in
    before a transport class, whose keyword arguments pass through; `send_once` names the
    transport's own `do_request`, one HTTP round trip."""

    def __init__(
        self,
        *args: Any,
        max_attempts: int = 5,
        backoff_base: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 60.0,
        retry_flood_limits: bool = True,
        sleep: Sleep = asyncio.sleep,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.retry_flood_limits = retry_flood_limits
        self._sleep = sleep
        #: Counts every try by method and outcome (None: metrics are off; set by bot.app).
        self.metrics: Metrics | None = None

    def backoff(self, attempt: int) -> float:
        """The wait after failed attempt number `attempt` (1-based): base, 2·base, 4·base …"""
        return min(self.max_backoff, self.backoff_base * 2.0 ** (attempt - 1))

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        write_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        connect_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        pool_timeout: Timeout = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        endpoint = _endpoint(url)
        attempt = 1
        maybe_done = False  # an earlier try may have been carried out
        while True:
            try:
                code, payload = await self.send_once(
                    url,
                    method,
                    request_data,
                    read_timeout,
                    write_timeout,
                    connect_timeout,
                    pool_timeout,
                )
            except NetworkError as error:  # TimedOut too; client errors arrive as these
                self._count(endpoint, TIMEOUT if isinstance(error, TimedOut) else NO_CONNECTION)
                reason = f"{type(error).__name__}: {_scrub(str(error), url)}"
                if not surely_not_sent(error):
                    if not is_repeatable(endpoint):
                        _note_unanswered(endpoint)
                        log.warning(
                            "Bot API %s got no answer (%s); not sent again", endpoint, reason
                        )
                        raise OutcomeUnknown(f"{endpoint}: no answer ({reason})") from error
                    if not maybe_done:
                        _note_unanswered(endpoint)
                    maybe_done = True
                if attempt >= self.max_attempts:
                    raise
                delay = self.backoff(attempt)
            else:
                self._count(endpoint, answer_outcome(code))
                if code == 400 and maybe_done and _says_already_done(payload):
                    log.info("Bot API %s: the unanswered try had done it", endpoint)
                    return DONE
                retry_delay, reason = self._retry_delay(code, payload, attempt)
                if retry_delay is None:
                    return code, payload
                delay = retry_delay
            log.warning(
                "Bot API %s failed (%s); attempt %d of %d, retrying in %.2gs",
                endpoint,
                reason,
                attempt,
                self.max_attempts,
                delay,
            )
            await self._sleep(delay)
            attempt += 1

    def _count(self, endpoint: str, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.bot_api_call(endpoint, outcome)

    def _retry_delay(self, code: int, payload: bytes, attempt: int) -> tuple[float | None, str]:
        """How long to wait before sending an answered call again (None: it is final)."""
        if attempt >= self.max_attempts:
            return None, ""
        if code == 429 and self.retry_flood_limits:
            retry_after = _retry_after(payload)
            if retry_after is None or retry_after > self.max_retry_after:
                return None, ""
            return retry_after, f"429 Too Many Requests, retry after {retry_after:g}s"
        if 500 <= code <= 599:
            return self.backoff(attempt), f"HTTP {code}"
        return None, ""

    @abc.abstractmethod
    async def send_once(
        self,
        url: str,
        method: str,
        request_data: RequestData | None,
        read_timeout: Timeout,
        write_timeout: Timeout,
        connect_timeout: Timeout,
        pool_timeout: Timeout,
    ) -> tuple[int, bytes]:
        """One HTTP round trip: the transport's own `do_request`."""


class RetryingRequest(Retrying, AiohttpRequest):
    """The bot's transport: aiohttp, with the retry policy."""

    async def send_once(
        self,
        url: str,
        method: str,
        request_data: RequestData | None,
        read_timeout: Timeout,
        write_timeout: Timeout,
        connect_timeout: Timeout,
        pool_timeout: Timeout,
    ) -> tuple[int, bytes]:
        timeouts = (read_timeout, write_timeout, connect_timeout, pool_timeout)
        return await AiohttpRequest.do_request(self, url, method, request_data, *timeouts)


class RetryingHTTPXRequest(Retrying, HTTPXRequest):
    """PTB's stock httpx transport with the same retry policy."""

    async def send_once(
        self,
        url: str,
        method: str,
        request_data: RequestData | None,
        read_timeout: Timeout,
        write_timeout: Timeout,
        connect_timeout: Timeout,
        pool_timeout: Timeout,
    ) -> tuple[int, bytes]:
        timeouts = (read_timeout, write_timeout, connect_timeout, pool_timeout)
        return await HTTPXRequest.do_request(self, url, method, request_data, *timeouts)


def _endpoint(url: str) -> str:
    """The Bot API method of a request URL (`…/bot<token>/sendMessage` → `sendMessage`)."""
    return url.rstrip("/").rsplit("/", 1)[-1] or "?"


def _scrub(text: str, url: str) -> str:
    """An error text without the URL or its path (one of the path's segments is the token)."""
    text = text.replace(url, "<url>")
    # scheme, "", host, path segments …, method
    for segment in url.split("/")[3:-1]:
        if segment:
            text = text.replace(segment, "<redacted>")
    return text


def _retry_after(payload: bytes) -> float | None:
    """`parameters.retry_after` of a Bot API error answer, in seconds."""
    try:
        body = json.loads(payload.decode("utf-8", "replace"))
        value = body["parameters"]["retry_after"]
    except (ValueError, KeyError, TypeError):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def _says_already_done(payload: bytes) -> bool:
    """Whether a 400 answer says the call had been carried out before."""
    text = payload.decode("utf-8", "replace").lower()
    return any(phrase in text for phrase in ALREADY_DONE)
