"""`bot.chores.outage.Outage`, as the polling loop uses it: Telegram down is one WARNING a
while, with a count, and one INFO when it answers again (on a clock the test turns)."""

from __future__ import annotations

import logging

import pytest

from bot.chores.outage import Outage


def test_an_outage_is_a_warning_a_minute_and_a_line_when_over(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    outage = Outage("Telegram's getUpdates", every=60.0, clock=lambda: now[0])
    caplog.set_level(logging.INFO, "bot.chores.outage")
    for _ in range(130):  # a failed poll a second, as PTB's updater retried, for 130 s
        outage.failed(ConnectionError("connection refused"))
        now[0] += 1.0
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "Telegram's getUpdates fails: 1 failed calls in 0 s, the last: "
        "ConnectionError: connection refused",
        "Telegram's getUpdates fails: 61 failed calls in 60 s, the last: "
        "ConnectionError: connection refused",
        "Telegram's getUpdates fails: 121 failed calls in 120 s, the last: "
        "ConnectionError: connection refused",
    ]
    outage.succeeded()
    outage.succeeded()  # once only
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert infos == ["Telegram's getUpdates answers again, after 130 failed calls in 130 s"]
    assert all(r.exc_info is None for r in caplog.records)
    # The next outage begins afresh.
    outage.failed(ConnectionError("again"))
    assert caplog.records[-1].getMessage().startswith("Telegram's getUpdates fails: 1 failed")
