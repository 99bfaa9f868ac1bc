"""Clocks for games between strangers, as pure rules on a `GameView`.

Each side has its own time; the side to move spends it from when its player could see that
it is their turn until they move. A turn begins with the move before it (`turn_started_at`),
but its clock starts only once Telegram has answered the edit or posting that shows the turn
on the board its player sees (`seen`): their own board between strangers, the one board in a
group. A board held for a group's pace, a retried edit or a posting in doubt never costs the
player time (lag compensation, as lichess does for network lag). A board nobody hears back
about starts its clock at the latest a grace after the turn began (`seen_by_grace`).

A side whose time runs out loses at once ("flags"), and the win is rated; but if ❌ runs out
before the first move of the game, the game is aborted and counts nowhere (as lichess aborts
a game nobody started).

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
(`flag_at`, what the turn clock looks for): None while the turn's clock waits for its board,
and from then its start plus the time left, so the clock's start is never stored apart.
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


def with_clock(game: GameView, clock: Clock) -> GameView:
    """A new game between strangers with `clock` on both sides, ❌'s to start once ❌'s
    board is posted (`seen`)."""
    return replace(
        game,
        clock_seconds=clock.seconds,
        clock_delay=clock.delay,
        x_clock=clock.seconds,
        o_clock=clock.seconds,
        flag_at=None,
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


def is_running(game: GameView) -> bool:
    """Whether the side to move's clock runs: a clocked game going on, whose turn its
    player has been shown (or whose grace is over)."""
    return is_clocked(game) and game.is_active and game.flag_at is not None


def clock_waits(game: GameView) -> bool:
    """Whether the side to move's clock waits for the board that shows them the turn."""
    return is_clocked(game) and game.is_active and game.flag_at is None


def time_left(game: GameView, mark: str, now: datetime) -> float:
    """A side's time left at `now` (never below zero): the side to move spends it, once its
    clock runs (never more than it had as the turn began)."""
    left = stored_left(game, mark)
    if game.flag_at is not None and mark == game.to_move and is_running(game):
        left = min(left, (game.flag_at - now).total_seconds())
    return max(0.0, left)


def seen(game: GameView, at: datetime) -> GameView:
    """The game with the side to move's clock running from `at`, when its player was shown
    the turn."""
    waiting = stored_left(game, game.to_move)
    return replace(game, flag_at=at + timedelta(seconds=waiting))


def seen_by_grace(game: GameView, grace: timedelta) -> GameView:
    """The game with the side to move's clock running from `grace` after the turn began: a
    board nobody heard back about (a posting in doubt, an edit refused) stalls no game."""
    assert game.turn_started_at is not None
    return seen(game, game.turn_started_at + grace)


def after_move(before: GameView, after: GameView, now: datetime) -> GameView:
    """`after` (the game once `before.to_move` has moved at `now`) with the mover's clock
    charged — the time the move took from when its turn was seen, less up to the delay
    back — and the other's waiting for its board. A move made before the bot heard back
    about the board that showed its turn costs nothing: it was on the player's screen a
    moment at most."""
    if not is_clocked(before):
        return after
    mover = before.to_move
    had = stored_left(before, mover)
    took = 0.0
    if before.flag_at is not None and is_running(before):
        started = before.flag_at - timedelta(seconds=had)
        took = max(0.0, (now - started).total_seconds())
    left = max(0.0, had - took + min(took, before.clock_delay or 0.0))
    return replace(_set_left(after, mover, left), flag_at=None)


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
