"""The contract of `bot.telegram.request_timeouts`, the seam that names PTB's private timeout type:
these fail when python-telegram-bot changes what our transports rely on."""

from __future__ import annotations

import inspect
import json
import typing
from typing import Any

import pytest
from telegram import Bot
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from bot.telegram.http_transport import AiohttpRequest
from bot.telegram.request import Retrying, RetryingHTTPXRequest, RetryingRequest
from bot.telegram.request_timeouts import Timeout, timeout_or

TIMEOUTS = ("read_timeout", "write_timeout", "connect_timeout", "pool_timeout")
DO_REQUEST = ("self", "url", "method", "request_data", *TIMEOUTS)


@pytest.mark.parametrize(
    "transport",
    [BaseRequest, HTTPXRequest, AiohttpRequest, Retrying, RetryingRequest, RetryingHTTPXRequest],
)
def test_do_request_has_the_signature_our_transports_override_and_call(transport: type) -> None:
    # Retrying calls the transport's do_request with these arguments in this order.
    parameters = inspect.signature(transport.do_request).parameters
    assert tuple(parameters) == DO_REQUEST
    hints = typing.get_type_hints(transport.do_request)
    for name in TIMEOUTS:
        assert hints[name] == Timeout, f"{transport.__name__}.do_request({name}=…)"
        assert parameters[name].default is BaseRequest.DEFAULT_NONE


def test_timeout_or_tells_not_given_from_given() -> None:
    assert timeout_or(BaseRequest.DEFAULT_NONE, 3.0) == 3.0
    assert timeout_or(BaseRequest.DEFAULT_NONE, None) is None
    assert timeout_or(None, 3.0) is None  # given: no timeout at all
    assert timeout_or(2.5, 3.0) == 2.5
    assert timeout_or(0, 3.0) == 0


class Recording(BaseRequest):
    """A transport that answers every call with `result` and keeps the timeouts PTB passed."""

    def __init__(self, result: object) -> None:
        self.result = result
        self.calls: list[tuple[str, dict[str, Any]]] = []

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

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
        values = (read_timeout, write_timeout, connect_timeout, pool_timeout)
        timeouts = dict(zip(TIMEOUTS, values, strict=True))
        self.calls.append((url.rsplit("/", 1)[-1], timeouts))
        return 200, json.dumps({"ok": True, "result": self.result}).encode()


async def test_ptb_passes_default_none_or_the_callers_numbers() -> None:
    me = {"id": 1, "is_bot": True, "first_name": "Bot", "username": "test_bot"}
    request = Recording(me)
    bot = Bot("1:secret", request=request, get_updates_request=Recording([]))
    await bot.get_me()
    await bot.get_me(read_timeout=7.0, connect_timeout=None)
    (_, not_given), (_, given) = request.calls
    assert all(value is BaseRequest.DEFAULT_NONE for value in not_given.values())
    assert given["read_timeout"] == 7.0 and given["connect_timeout"] is None
    assert given["write_timeout"] is BaseRequest.DEFAULT_NONE
    # What our transports make of them.
    assert [timeout_or(v, 1.0) for v in not_given.values()] == [1.0] * 4
    assert timeout_or(given["read_timeout"], 1.0) == 7.0


async def test_every_timeout_ptb_passes_is_a_number_none_or_not_given() -> None:
    polls = Recording([])
    bot = Bot("1:secret", request=Recording(True), get_updates_request=polls)
    await bot.get_updates(timeout=10)
    await bot.get_updates(timeout=10, read_timeout=3)
    for _, timeouts in polls.calls:
        for value in timeouts.values():
            assert value is None or value is BaseRequest.DEFAULT_NONE or type(value) in (int, float)
