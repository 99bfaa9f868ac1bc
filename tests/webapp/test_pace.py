"""The pace of new games from the Mini App (bot.webapp.pace), on a clock the test moves."""

from __future__ import annotations

from bot.webapp.pace import MAX_KEPT, WINDOW_SECONDS, NewGamePace


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_user_starts_so_many_a_minute_and_more_once_the_minute_moves_on() -> None:
    clock = Clock()
    pace = NewGamePace(3, clock)
    assert [pace.admit(1) for _ in range(5)] == [True, True, True, False, False]
    assert pace.admit(2)  # another user's pace is their own
    clock.now += WINDOW_SECONDS / 2
    assert not pace.admit(1)  # refusals do not count, but the minute is not over yet
    clock.now += WINDOW_SECONDS / 2
    assert [pace.admit(1) for _ in range(4)] == [True, True, True, False]


def test_it_remembers_a_bounded_number_of_users() -> None:
    pace = NewGamePace(1, Clock())
    for user_id in range(MAX_KEPT + 10):
        assert pace.admit(user_id)
    assert len(pace._starts) == MAX_KEPT
    assert not pace.admit(MAX_KEPT + 9)  # the most recent are kept
