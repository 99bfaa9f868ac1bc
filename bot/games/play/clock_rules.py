"""Clocks for games between strangers, as pure rules on a `GameView`.

Each side has its own time; the side to move spends it, from when its turn began
(`turn_started_at`) until it moves. A side whose time runs out loses at once ("flags"), and
the win is rated; but if ❌ runs out before the first move of the game, the game is aborted
and counts nowhere (as lichess aborts a game nobody started).

The default (`DEFAULT_CLOCK`): one minute a side, and up to 5 s back after each move
(a Bronstein delay: a move gives back the time it took, at most 5 s, so a clock never rises
above its start). Why: the quickest controls game servers offer are lichess's and
chess.com's "1+0" bullet and "3+2" blitz for some 40 moves a side; a tic-tac-toe game has 5
moves a side on 3×3 and up to 32 on 8×8. One minute is roomy for 3×3, the 5 s back let a
big board be played at up to 5 s a move for ever, and because the clock never rises above
its start a player who walks away loses within one minute whatever happened before: the
promise the board can make ("under 2 minutes") without the friends' 20-minute turn
timeout. Unlike a Fischer increment, nobody can bank time by moving fast.

Stored per game: the control (`clock_seconds`, `clock_delay`), each side's time left as of
the start of the current turn (`x_clock`, `o_clock`), and when the side to move flags
(`flag_at`, what the turn clock looks for).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from bot.games.model import GameView
from core.board import X


class TurnEvent(StrEnum):
    NUDGE = "nudge"
    TIMEOUT = "timeout"
    EXPIRED = "expired"  # a challenge nobody joined
    ABORTED = "aborted"  # a clocked game ❌ never began (`verdict`)


@dataclass(frozen=True)
class Clock:
    """A time control: `seconds` a side, up to `delay` seconds back after each move."""

    seconds: float = 60.0
    delay: float = 5.0


DEFAULT_CLOCK = Clock()

#: The controls `/play` takes (`3+2`: three minutes a side, up to 2 s back a move): whole
#: minutes, as game servers offer them, from bullet to a slow game.
MINUTES = range(1, 11)
DELAYS = range(0, 31)
_CONTROL = re.compile(r"(\d{1,2}(?:\.\d{1,2})?)\+(\d{1,2}(?:\.\d{1,2})?)")


def clock_key(clock: Clock) -> str:
    """`1+5`: a control as it is written (minutes a side + seconds back a move, to a
    hundredth: a host's default may be any `STRANGER_CLOCK_SECONDS`)."""
    return f"{round(clock.seconds / 60, 2):g}+{round(clock.delay, 2):g}"


def clock_of_key(key: str) -> Clock | None:
    """The control a key names (the inverse of `clock_key`, for any host's default too:
    up to an hour a side and a minute back)."""
    found = _CONTROL.fullmatch(key)
    if found is None:
        return None
    minutes, delay = float(found.group(1)), float(found.group(2))
    if not 0 < minutes <= 60 or delay > 60:
        return None
    return Clock(minutes * 60, delay)


def parse_clock(word: str) -> Clock | None:
    """A control a player typed (`3+2`): whole minutes in `MINUTES`, seconds in `DELAYS`."""
    found = _CONTROL.fullmatch(word.strip())
    if found is None or not found.group(1).isdigit() or not found.group(2).isdigit():
        return None
    minutes, delay = int(found.group(1)), int(found.group(2))
    if minutes not in MINUTES or delay not in DELAYS:
        return None
    return Clock(minutes * 60.0, float(delay))


def with_clock(game: GameView, clock: Clock, now: datetime) -> GameView:
    """A new game between strangers with `clock` on both sides, ❌'s running from `now`."""
    return replace(
        game,
        clock_seconds=clock.seconds,
        clock_delay=clock.delay,
        x_clock=clock.seconds,
        o_clock=clock.seconds,
        flag_at=now + timedelta(seconds=clock.seconds),
    )


def is_clocked(game: GameView) -> bool:
    return game.clock_seconds is not None


def control_of(game: GameView) -> Clock | None:
    """The time control a game is played with (None: no clock)."""
    if game.clock_seconds is None:
        return None
    return Clock(game.clock_seconds, game.clock_delay or 0.0)


def stored_left(game: GameView, mark: str) -> float:
    """A side's time as of the start of the current turn."""
    left = game.x_clock if mark == X else game.o_clock
    return left if left is not None else game.clock_seconds or 0.0


def time_left(game: GameView, mark: str, now: datetime) -> float:
    """A side's time left at `now` (never below zero): the side to move spends it."""
    left = stored_left(game, mark)
    if game.is_active and mark == game.to_move and game.turn_started_at is not None:
        left -= (now - game.turn_started_at).total_seconds()
    return max(0.0, left)


def after_move(before: GameView, after: GameView, now: datetime) -> GameView:
    """`after` (the game once `before.to_move` has moved at `now`) with the mover's clock
    charged — the time the move took, less up to the delay back — and the other's running."""
    if not is_clocked(before) or before.turn_started_at is None:
        return after
    mover = before.to_move
    took = max(0.0, (now - before.turn_started_at).total_seconds())
    left = max(0.0, stored_left(before, mover) - took + min(took, before.clock_delay or 0.0))
    after = _set_left(after, mover, left)
    if not after.is_active:
        return replace(after, flag_at=None)
    waiting = stored_left(after, after.to_move)
    return replace(after, flag_at=now + timedelta(seconds=waiting))


def flagged(game: GameView) -> GameView:
    """The game with the side to move's time out (shown `0:00`), nothing left to flag."""
    if not is_clocked(game):
        return game
    return replace(_set_left(game, game.to_move, 0.0), flag_at=None)


def _set_left(game: GameView, mark: str, left: float) -> GameView:
    return replace(game, x_clock=left) if mark == X else replace(game, o_clock=left)


def verdict(game: GameView, now: datetime) -> TurnEvent | None:
    """What the turn clock does to a clocked game at `now`: nothing while the side to move
    has time; else abort it if ❌ never moved, or end it as a loss on time."""
    if not game.is_active or time_left(game, game.to_move, now) > 0:
        return None
    return TurnEvent.ABORTED if game.ply == 0 else TurnEvent.TIMEOUT


def shown(seconds: float) -> str:
    """`1:00`, `0:07`: a clock as the board shows it (whole seconds, rounded up, so that
    `0:00` is shown only once the time is out)."""
    whole = int(-(-seconds // 1))
    return f"{whole // 60}:{whole % 60:02d}"
