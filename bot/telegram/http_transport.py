"""Bot API calls over aiohttp: PTB's `BaseRequest` seam, filled with a lighter HTTP client.

PTB ships `HTTPXRequest`. httpx and httpcore are fine clients, but per call they walk a deep
stack (anyio, h11, a pool that polls every idle socket before reuse) that cost more CPU than
the rest of a tap. aiohttp parses HTTP in C, and it is already a dependency (the webhook and
Mini App server). The behaviour PTB relies on is the same: keep-alive connections up to
`connection_pool_size`, the same default timeouts, the parameters in the body (multipart when
a file goes along), and every failure raised as PTB's `TimedOut` or `NetworkError` with the
aiohttp error as its cause.
"""

from __future__ import annotations

import json
import urllib.request
from functools import lru_cache
from urllib.parse import urlsplit

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.telegram.request_timeouts import Timeout, timeout_or

#: aiohttp failures that happen before the request leaves: Telegram surely never saw it.
NOT_SENT = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)
#: The content type of a call without files. The Bot API takes "application/json (except for
#: uploading files)" as well as forms (core.telegram.org/bots/api#making-requests).
JSON = "application/json"


class AiohttpRequest(BaseRequest):
    """A `BaseRequest` on one `aiohttp.ClientSession`, opened by `initialize`."""

    def __init__(
        self,
        connection_pool_size: int = 1,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        # aiohttp has no write timeout; a stuck write ends with the read timeout that follows.
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        self._headers = {"User-Agent": self.USER_AGENT}

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=0)
            self._session = aiohttp.ClientSession(connector=connector)

    async def shutdown(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

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
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = timeout_or(read_timeout, self._read_timeout)
        connect = timeout_or(connect_timeout, self._connect_timeout)
        pool = timeout_or(pool_timeout, self._pool_timeout)
        # aiohttp's `connect` covers waiting for a free connection and opening one.
        waiting = None if connect is None or pool is None else connect + pool
        timeout = aiohttp.ClientTimeout(
            total=None, connect=waiting, sock_connect=connect, sock_read=read
        )
        try:
            async with self._session.request(
                method,
                url,
                data=_body(request_data),
                headers=self._headers,
                timeout=timeout,
                proxy=proxy_for(url),
            ) as response:
                return response.status, await response.read()
        except (TimeoutError, aiohttp.ServerTimeoutError) as error:
            raise TimedOut from error
        except aiohttp.ClientError as error:
            # The class name says what happened when aiohttp's message is empty.
            raise NetworkError(f"aiohttp.{type(error).__name__}: {error}") from error


def _body(request_data: RequestData | None) -> aiohttp.FormData | aiohttp.BytesPayload | None:
    """The parameters as one JSON object, multipart (each value JSON) when files go along.
    A form was URL-encoded here before: `urllib.parse.urlencode` quotes a keyboard's JSON byte
    by byte in Python, about 0.35 ms a call, more than the rest of writing it; `json.dumps`
    is C. aiohttp's own `FormData` would start a multipart writer for every call (a random
    boundary: a system call)."""
    if request_data is None:
        return None
    if not request_data.contains_files:
        body = json.dumps(request_data.parameters, ensure_ascii=False, separators=(",", ":"))
        return aiohttp.BytesPayload(body.encode(), content_type=JSON)
    form = aiohttp.FormData(request_data.json_parameters)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form


@lru_cache(maxsize=256)
def proxy_for(url: str) -> str | None:
    """The proxy the environment (HTTPS_PROXY, NO_PROXY …) names for this URL, as httpx would
    use it; looked up once per Bot API method rather than on every call."""
    parts = urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)
