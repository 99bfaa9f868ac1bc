"""Trouble said in a few lines, not a line (or a traceback) a try: Telegram down for the
polling loop, the database away for the chores' rounds, a flood of refused webhook requests."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

#: How often an outage is logged while it lasts (TELEGRAM_OUTAGE_LOG_SECONDS).
OUTAGE_LOG_SECONDS = 60.0


class Outage:
    """Failures of one recurring thing (Telegram's getUpdates, a chore's round): one WARNING
    when they begin (with its traceback, if `traceback`) and one every `every` seconds while
    they last, each with how many failed and the last one's words; one INFO once it works
    again."""

    def __init__(
        self,
        what: str,
        every: float = OUTAGE_LOG_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        *,
        traceback: bool = False,
        tries: str = "calls",
        logger: logging.Logger = log,
    ) -> None:
        self.what, self.every, self._clock = what, every, clock
        self._traceback, self._tries, self._log = traceback, tries, logger
        self.failures = 0
        self._began = 0.0
        self._logged_at: float | None = None

    def failed(self, error: Exception) -> None:
        now = self._clock()
        if not self.failures:
            self._began = now
        self.failures += 1
        if self._logged_at is not None and now - self._logged_at < self.every:
            return
        self._logged_at = now
        self._log.warning(
            "%s fails: %d failed %s in %.0f s, the last: %s",
            self.what,
            self.failures,
            self._tries,
            now - self._began,
            one_line(error),
            exc_info=error if self._traceback and self.failures == 1 else None,
        )

    def succeeded(self) -> None:
        if not self.failures:
            return
        self._log.info(
            "%s answers again, after %d failed %s in %.0f s",
            self.what,
            self.failures,
            self._tries,
            self._clock() - self._began,
        )
        self.failures = 0
        self._logged_at = None


def one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Tally:
    """Events of one kind that may come in floods (webhook requests refused for a wrong
    secret): the first said at once, the rest counted and said in one line at most every
    `every` seconds, with the last one's words."""

    def __init__(
        self, what: str, every: float = OUTAGE_LOG_SECONDS, *, logger: logging.Logger = log
    ) -> None:
        self.what, self.every, self._log = what, every, logger
        self._count = 0
        self._last = ""
        self._flush: asyncio.TimerHandle | None = None

    def heard(self, detail: str) -> None:
        """One more, e.g. `from 203.0.113.7`."""
        self._count, self._last = self._count + 1, detail
        if self._flush is None:
            self._say()
            self._flush = asyncio.get_running_loop().call_later(self.every, self._said)

    def _said(self) -> None:
        self._flush = None
        if self._count:
            self._say()
            self._flush = asyncio.get_running_loop().call_later(self.every, self._said)

    def _say(self) -> None:
        if self._count == 1:
            self._log.info("%s, %s", self.what, self._last)
        else:
            self._log.info(
                "%s: %d in %.0f s, the last %s", self.what, self._count, self.every, self._last
            )
        self._count = 0
