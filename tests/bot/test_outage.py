"""Trouble in a few lines (`bot.chores.outage`): a chore's rounds while the database is away,
one WARNING with its traceback, then a count a minute, not a traceback a round (issue 50: four
rounds logged 184 tracebacks in 50 s); refused webhook requests, counted."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.chores import outage, rounds


async def test_failing_rounds_are_one_warning_with_a_traceback_then_a_line_when_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls = 0
    twenty = asyncio.Event()

    async def round_() -> None:
        nonlocal calls
        calls += 1
        if calls == 20:
            twenty.set()
        if calls <= 20:
            raise OSError("unable to open database file")

    chore = rounds.Rounds("board catch-up", round_, every=0.001)
    with caplog.at_level(logging.INFO, logger=rounds.__name__):
        chore.start()
        try:
            await asyncio.wait_for(twenty.wait(), 10)
            while calls < 22:  # noqa: ASYNC110 - a round or two that works
                await asyncio.sleep(0.001)
        finally:
            await chore.stop()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert warnings[0].exc_info is not None  # the first, with what went wrong where
    assert "board catch-up fails: 1 failed rounds" in warnings[0].getMessage()
    assert "OSError: unable to open database file" in warnings[0].getMessage()
    back = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert back == [back[0]] and "after 20 failed rounds" in back[0]


async def test_a_flood_of_refused_requests_is_two_lines_not_one_a_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Issue 50: 806 webhook requests with a wrong secret were 806 log lines.
    logger = logging.getLogger("test.tally")
    tally = outage.Tally("refused a webhook request without the right secret", 0.05, logger=logger)
    with caplog.at_level(logging.INFO, logger="test.tally"):
        for n in range(806):
            tally.heard(f"from 203.0.113.{n % 250}")
        assert [r.getMessage() for r in caplog.records] == [
            "refused a webhook request without the right secret, from 203.0.113.0"
        ]
        await asyncio.sleep(0.12)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[1:] == [
        "refused a webhook request without the right secret: 805 in 0 s, the last from 203.0.113.55"
    ]
