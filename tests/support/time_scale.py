"""Test time: Telegram's flood windows, shortened by one setting.

Telegram lets a group have 20 messages a minute; a test that plays a few games in a group waits
out that minute in real time. Here every flood window is shortened by one factor, on both
sides at once: the fake Bot API server (`FakeTelegram.enforce_flood_limits`) and the bot under
test (`BotRunner` paces it on its fake's clock). Counts and bursts stay Telegram's, so the
fake still refuses the 21st message of a group's window and the bot still has to pace; only the
window is 1.2 s instead of 60 at the default factor of 0.02.

Why a factor and not a virtual clock: the bot, the fake server, aiohttp, httpx, the database
drivers' threads and the spawned `python -m bot` processes all read the real clock, and a
virtual one would have to reach every one of them (or the tests would run on a clock that
nothing but the fake obeys). Shortened windows need no cooperation: real time, real races.

`TEST_TIME_SCALE` sets the factor for a whole run (1 is Telegram's clock); tests marked `paced`
(`pytest -m paced`: the flood and fair-queue tests, the full journeys) always run on
Telegram's clock, since what they prove is about Telegram's real numbers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

#: A test second is this many of Telegram's seconds' worth of flood window, unless
#: TEST_TIME_SCALE says otherwise.
DEFAULT_SCALE = 0.02
#: Telegram's own clock (the paced tier).
TELEGRAM_CLOCK = 1.0


def _scale_from_environment() -> float:
    raw = os.environ.get("TEST_TIME_SCALE", "").strip()
    if not raw:
        return DEFAULT_SCALE
    value = float(raw)
    if not 0 < value <= 1:
        raise ValueError(f"TEST_TIME_SCALE must be in (0, 1], not {raw!r}")
    return value


_scale = _scale_from_environment()


def time_scale() -> float:
    """The factor flood windows are shortened by now (1: Telegram's)."""
    return _scale


@contextmanager
def scaled_time(factor: float) -> Iterator[None]:
    """Flood windows shortened by `factor` inside the block (for fakes and bots made there)."""
    global _scale
    before, _scale = _scale, factor
    try:
        yield
    finally:
        _scale = before
