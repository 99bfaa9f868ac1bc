"""The timeouts PTB hands a transport's `do_request`: the one module of the bot that names a
private module of python-telegram-bot.

`telegram.request.BaseRequest` is PTB's public seam for Bot API transports (ours:
`bot.telegram.http_transport`), and its `do_request` types each timeout as `ODVInput[float]`:
a number, None (no timeout), or `BaseRequest.DEFAULT_NONE`, "not given: use the transport's
own". PTB
exports neither that type nor the `DefaultValue` class it is made of, so an override cannot
spell its signature, nor tell "not given" the way PTB's own `HTTPXRequest` does, without them.
Here they are named once. `tests/bot/test_request_timeouts.py` is their contract: it fails if
PTB moves them, changes `do_request`'s signature, or passes a timeout of another kind; and
pyproject pins PTB below its next major release.
"""

from __future__ import annotations

from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput

#: A timeout argument of `BaseRequest.do_request`.
Timeout = ODVInput[float]


def timeout_or(timeout: Timeout, default: float | None) -> float | None:
    """The timeout PTB passed, in seconds (None: none), or `default` where it passed none."""
    return default if isinstance(timeout, DefaultValue) else timeout
