"""Strangers' clocks as pure rules (`clock_rules`): what a move costs, when a side flags,
when a game is aborted, and how a clock reads."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.games.model import EndReason, GameStatus, GameView, Result
from bot.games.play import clock_rules, lifecycle
from bot.games.play.clock_rules import Clock, TurnEvent
from tests.games.test_lifecycle import ALICE, NOW, duel

CLOCK = Clock(seconds=60.0, delay=5.0)
TURN_TIMEOUT = timedelta(minutes=10)  # the friends' timeout: not what decides here


def clocked() -> GameView:
    return clock_rules.with_clock(duel(second_chat_id=2), CLOCK, NOW)


def later(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def test_a_new_game_starts_both_clocks_full_with_xs_running() -> None:
    game = clocked()
    assert (game.x_clock, game.o_clock) == (60.0, 60.0)
    assert game.flag_at == NOW + later(60)
    assert clock_rules.time_left(game, "X", NOW + later(20)) == 40.0
    assert clock_rules.time_left(game, "O", NOW + later(20)) == 60.0


def test_a_move_gives_back_at_most_the_delay_and_never_lifts_a_clock() -> None:
    game = clocked()
    quick = lifecycle.play_cell(game, 4, ALICE.id, NOW + later(3))
    # Three seconds taken, three given back: still full; ⭕'s clock runs now.
    assert quick.game.x_clock == 60.0 and quick.game.flag_at == NOW + later(63)
    slow = lifecycle.play_cell(game, 4, ALICE.id, NOW + later(20)).game
    assert slow.x_clock == pytest.approx(45.0)  # 20 s taken, 5 s back


@pytest.mark.parametrize(
    ("moved", "waited", "verdict"),
    [
        (False, 59, None),
        (False, 60, TurnEvent.ABORTED),  # ❌ never began: aborted
        (True, 59, None),
        (True, 61, TurnEvent.TIMEOUT),  # ⭕ flags: a loss on time
    ],
)
def test_the_clock_decides_not_the_turn_timeout(
    moved: bool, waited: int, verdict: TurnEvent | None
) -> None:
    game = clocked()
    if moved:
        game = lifecycle.play_cell(game, 4, ALICE.id, NOW).game
    assert lifecycle.timeout_verdict(game, later(waited), TURN_TIMEOUT) == verdict


def test_a_flag_loses_and_an_abort_counts_nowhere() -> None:
    game = lifecycle.play_cell(clocked(), 4, ALICE.id, NOW).game
    flagged = lifecycle.apply_timeout(game, TurnEvent.TIMEOUT, NOW + later(61))
    assert (flagged.status, flagged.result, flagged.end_reason) == (
        GameStatus.FINISHED,
        Result.X,
        EndReason.TIMEOUT,
    )
    assert flagged.o_clock == 0.0 and flagged.flag_at is None
    aborted = lifecycle.apply_timeout(clocked(), TurnEvent.ABORTED, NOW + later(60))
    assert (aborted.status, aborted.end_reason) == (GameStatus.ABANDONED, EndReason.ABORTED)
    assert aborted.result is None and aborted.x_clock == 0.0


def test_a_game_without_a_clock_keeps_the_friends_timeout() -> None:
    game = lifecycle.play_cell(duel(), 4, ALICE.id, NOW).game
    assert not clock_rules.is_clocked(game) and game.flag_at is None
    assert lifecycle.timeout_verdict(game, later(61), TURN_TIMEOUT) is None


@pytest.mark.parametrize(
    ("seconds", "shown"), [(60, "1:00"), (59.2, "1:00"), (7, "0:07"), (0.1, "0:01"), (0, "0:00")]
)
def test_a_clock_reads_in_whole_seconds_rounded_up(seconds: float, shown: str) -> None:
    assert clock_rules.shown(seconds) == shown


@pytest.mark.parametrize(
    ("word", "clock"),
    [
        ("1+5", Clock(60, 5)),
        ("3+2", Clock(180, 2)),
        ("10+0", Clock(600, 0)),
        ("5+30", Clock(300, 30)),
    ],
)
def test_a_typed_control_reads_as_minutes_a_side_and_seconds_back(word: str, clock: Clock) -> None:
    assert clock_rules.parse_clock(word) == clock
    assert clock_rules.clock_key(clock) == word
    assert clock_rules.clock_of_key(word) == clock


@pytest.mark.parametrize(
    "word", ["0+5", "11+0", "3+31", "3+", "+2", "3-2", "1.5+5", "3+2+1", "x+y"]
)
def test_a_control_out_of_reach_is_refused(word: str) -> None:
    assert clock_rules.parse_clock(word) is None


@given(st.floats(1.0, 3600.0), st.floats(0.0, 60.0))
def test_any_hosts_default_control_survives_its_key(seconds: float, delay: float) -> None:
    """A host's default (STRANGER_CLOCK_SECONDS may be anything from 1 s to an hour) has a
    key that reads back to itself, within the key's hundredth of a minute."""
    key = clock_rules.clock_key(Clock(seconds, delay))
    back = clock_rules.clock_of_key(key)
    assert back is not None and clock_rules.clock_key(back) == key
    assert abs(back.seconds - seconds) <= 0.3 and abs(back.delay - delay) <= 0.005
