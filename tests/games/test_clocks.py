"""Strangers' clocks as pure rules (`clock_rules`): what a move costs, when a side flags,
when a game is aborted, how a clock reads, and that a turn's clock waits for the board that
shows it (lag compensation)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.games.db import store
from bot.games.db.live_games import stored
from bot.games.db.models import utcnow
from bot.games.model import BoardRef, EndReason, GameStatus, GameView, Result
from bot.games.play import clock_rules, lifecycle
from bot.games.play.clock_rules import Clock, TurnEvent
from bot.games.use_cases import Games
from core.board import X
from tests.games.test_lifecycle import ALICE, BOB, NOW, duel

CLOCK = Clock(seconds=60.0, delay=5.0)
TURN_TIMEOUT = timedelta(minutes=10)  # the friends' timeout: not what decides here


def clocked(clock: Clock = CLOCK) -> GameView:
    """A new game between strangers, ❌'s board not posted yet."""
    return clock_rules.with_clock(duel(second_chat_id=2), clock)


def started(clock: Clock = CLOCK) -> GameView:
    """A new game between strangers whose ❌ was shown her board at NOW."""
    return clock_rules.seen(clocked(clock), NOW)


def later(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def test_a_new_game_starts_both_clocks_full_xs_once_her_board_is_posted() -> None:
    game = clocked()
    assert (game.x_clock, game.o_clock) == (60.0, 60.0)
    assert game.flag_at is None and clock_rules.clock_waits(game)
    assert clock_rules.time_left(game, "X", NOW + later(20)) == 60.0  # not shown yet
    game = clock_rules.seen(game, NOW + later(2))
    assert game.flag_at == NOW + later(62) and not clock_rules.clock_waits(game)
    assert clock_rules.time_left(game, "X", NOW + later(22)) == 40.0
    assert clock_rules.time_left(game, "O", NOW + later(22)) == 60.0


def test_a_move_gives_back_at_most_the_delay_and_never_lifts_a_clock() -> None:
    game = started()
    quick = lifecycle.play_cell(game, 4, ALICE.id, NOW + later(3))
    # Three seconds taken, three given back: still full; ⭕'s clock waits for his board.
    assert quick.game.x_clock == 60.0 and quick.game.flag_at is None
    assert clock_rules.seen(quick.game, NOW + later(4)).flag_at == NOW + later(64)
    slow = lifecycle.play_cell(game, 4, ALICE.id, NOW + later(20)).game
    assert slow.x_clock == pytest.approx(45.0)  # 20 s taken, 5 s back


def test_a_turn_costs_from_when_its_board_showed_it_not_from_the_move_before() -> None:
    # Issue 51: a group's pace held ⭕'s board 3.5 s after ❌'s move; he moved 1 s after he
    # saw it. His clock lost 1 s, not 4.5.
    bare = Clock(seconds=12.0, delay=0.0)
    moved = lifecycle.play_cell(started(bare), 4, ALICE.id, NOW).game
    assert clock_rules.time_left(moved, "O", NOW + later(3.5)) == 12.0  # still on its way
    shown = clock_rules.seen(moved, NOW + later(3.5))
    assert clock_rules.time_left(shown, "O", NOW + later(4.5)) == pytest.approx(11.0)
    answered = lifecycle.play_cell(shown, 0, BOB.id, NOW + later(4.5)).game
    assert answered.o_clock == pytest.approx(11.0)


def test_a_move_made_before_its_board_was_heard_of_costs_nothing() -> None:
    bare = Clock(seconds=12.0, delay=0.0)
    moved = lifecycle.play_cell(started(bare), 4, ALICE.id, NOW).game
    answered = lifecycle.play_cell(moved, 0, BOB.id, NOW + later(5)).game
    assert answered.o_clock == 12.0


def test_a_clock_nobody_heard_of_waits_and_flags_nothing_until_its_grace_is_over() -> None:
    moved = lifecycle.play_cell(started(), 4, ALICE.id, NOW).game
    assert lifecycle.timeout_verdict(moved, later(600), TURN_TIMEOUT) is None
    graced = clock_rules.seen_by_grace(moved, later(30))
    assert graced.flag_at == NOW + later(90)  # from 30 s after the move: 60 s to spend
    assert clock_rules.time_left(graced, "O", NOW + later(40)) == 50.0
    assert lifecycle.timeout_verdict(graced, later(90), TURN_TIMEOUT) == TurnEvent.TIMEOUT


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
    game = started()
    if moved:
        game = clock_rules.seen(lifecycle.play_cell(game, 4, ALICE.id, NOW).game, NOW)
    assert lifecycle.timeout_verdict(game, later(waited), TURN_TIMEOUT) == verdict


def test_a_flag_loses_and_an_abort_counts_nowhere() -> None:
    game = clock_rules.seen(lifecycle.play_cell(started(), 4, ALICE.id, NOW).game, NOW)
    flagged = lifecycle.apply_timeout(game, TurnEvent.TIMEOUT, NOW + later(61))
    assert (flagged.status, flagged.result, flagged.end_reason) == (
        GameStatus.FINISHED,
        Result.X,
        EndReason.TIMEOUT,
    )
    assert flagged.o_clock == 0.0 and flagged.flag_at is None
    aborted = lifecycle.apply_timeout(started(), TurnEvent.ABORTED, NOW + later(60))
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


async def strangers(games: Games) -> GameView:
    """A game between two strangers, paired through the queue (no board posted yet)."""
    await games.matchmaking.join(ALICE, ALICE.id, "3x3", "en")
    paired = await games.matchmaking.join(BOB, BOB.id, "3x3", "ru")
    assert paired.game is not None
    return paired.game


async def test_a_clock_starts_once_at_the_first_word_of_its_board(games: Games) -> None:
    game = await strangers(games)
    assert clock_rules.clock_waits(game)
    assert game.turn_started_at is not None
    shown_at = game.turn_started_at + later(2)
    assert await games.turn_starts.seen(game, shown_at)
    # A second answer (another instance's, a redraw's) and the grace change nothing.
    assert not await games.turn_starts.seen(game, shown_at + later(1))
    assert await games.turn_starts.start_unseen(shown_at + later(60), later(30)) == 0
    stored = await games.store.get_game(game.id)
    assert stored is not None and stored.flag_at == shown_at + later(stored.x_clock or 0)


async def test_a_late_word_of_an_older_board_starts_no_clock(games: Games) -> None:
    game = await strangers(games)
    assert game.turn_started_at is not None
    assert await games.turn_starts.seen(game, game.turn_started_at)
    moved = await games.play.tap(game.id, BoardRef(ALICE.id), ALICE, 0, 4)
    assert moved.played and moved.game is not None
    # The answer for ❌'s board before her move comes in late: Bob's clock still waits.
    assert not await games.turn_starts.seen(game, utcnow())
    stored = await games.store.get_game(game.id)
    assert stored is not None and clock_rules.clock_waits(stored)
    # A move kept by this process is not trusted for when a clock started: read afresh.
    assert games.store.live.get(game.id) is None


async def test_a_move_read_before_its_turns_clock_started_leaves_the_next_clock_waiting(
    games: Games,
) -> None:
    # Issue 51, on PostgreSQL: ⭕ tapped the moment his board showed his turn, and the tap read
    # the game before that answer's clock start was stored. The move wrote what it changed
    # from what it read, which left the start behind: ❌'s turn ran on ⭕'s clock before her
    # board showed it her turn.
    game = await strangers(games)
    read = await games.store.get_game(game.id)
    assert read is not None and clock_rules.clock_waits(read)
    assert await games.turn_starts.seen(read, utcnow())
    turn = lifecycle.human_move(read, 4, ALICE.id, random.Random(0), utcnow())
    async with games.store.transaction() as session:
        await store.save(session, stored(read, read.version), turn.game, turn.moves)
    after = await games.store.get_game(game.id)
    assert after is not None and after.board.cells[4] == X
    assert clock_rules.clock_waits(after)


async def test_a_clock_nobody_heard_of_starts_after_the_grace_on_every_instance_once(
    games: Games,
) -> None:
    game = await strangers(games)
    assert game.turn_started_at is not None
    began = game.turn_started_at
    assert await games.turn_starts.start_unseen(began + later(29), later(30)) == 0
    assert await games.turn_starts.start_unseen(began + later(31), later(30)) == 1
    assert await games.turn_starts.start_unseen(began + later(32), later(30)) == 0
    stored = await games.store.get_game(game.id)
    assert stored is not None and stored.flag_at == began + later(30 + 60)
