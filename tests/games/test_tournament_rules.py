"""Tournament pairing and standings (`bot.games.tournaments.rules`), over random results."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.model import EndReason, GameStatus, Result
from bot.games.play.clock_rules import Clock
from bot.games.strangers.pairing import board_key
from bot.games.tournaments.rules import (
    Format,
    Pairing,
    PairResult,
    choose_format,
    circle,
    game_result,
    pair_round,
    places,
    points,
    rounds_for,
    standings,
    winners,
)
from bot.wire.game_spec import TournamentSpec, parse_tournament_args
from core.board import board_size

GAME_RESULTS = st.sampled_from([PairResult.X, PairResult.O, PairResult.DRAW])


def play_out(
    fmt: Format, players: int, data: st.DataObject, withdraw: bool = False
) -> list[Pairing]:
    """A whole tournament of `players`, each game's result drawn by hypothesis (and, with
    `withdraw`, a player now and then withdrawing between rounds)."""
    seeds = list(range(101, 101 + players))
    withdrawn: set[int] = set()
    history: list[Pairing] = []
    for number in range(1, rounds_for(fmt, players) + 1):
        if withdraw and data.draw(st.booleans(), label="withdraw?"):
            withdrawn.add(data.draw(st.sampled_from(seeds), label="who"))
        pairings = pair_round(fmt, seeds, withdrawn, history, number)
        if pairings is None:
            break
        for p in pairings:
            result = p.result or data.draw(GAME_RESULTS, label=f"round {number}")
            history.append(Pairing(p.round, p.x, p.o, result))
    return history


def met_pairs(history: list[Pairing]) -> Counter[frozenset[int]]:
    return Counter(frozenset((p.x, p.o)) for p in history if p.o is not None)


@settings(max_examples=60, deadline=None)
@given(players=st.integers(9, 16), data=st.data())
def test_a_swiss_never_pairs_two_players_twice_and_gives_at_most_one_bye(
    players: int, data: st.DataObject
) -> None:
    history = play_out(Format.SWISS, players, data)
    assert len({p.round for p in history}) == rounds_for(Format.SWISS, players)
    assert max(met_pairs(history).values()) == 1
    byes = Counter(p.x for p in history if p.is_bye)
    assert all(count == 1 for count in byes.values())
    assert len(byes) == (rounds_for(Format.SWISS, players) if players % 2 else 0)
    # Everyone plays every round (a bye is a round too).
    for number in {p.round for p in history}:
        seated = [s for p in history if p.round == number for s in (p.x, p.o) if s is not None]
        assert sorted(seated) == list(range(101, 101 + players))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_swiss_of_twelve_with_withdrawals_still_never_repeats_a_pair(data: st.DataObject) -> None:
    history = play_out(Format.SWISS, 12, data, withdraw=True)
    assert max(met_pairs(history).values(), default=1) == 1
    assert all(n == 1 for n in Counter(p.x for p in history if p.is_bye).values())


@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 8), data=st.data())
def test_round_robin_everyone_meets_everyone_exactly_once(
    players: int, data: st.DataObject
) -> None:
    history = play_out(Format.ROUND_ROBIN, players, data)
    seeds = range(101, 101 + players)
    assert met_pairs(history) == Counter(frozenset(p) for p in itertools.combinations(seeds, 2))
    # Sides even: nobody has ❌ more than once more (or less) than ⭕.
    sides = Counter(p.x for p in history if p.o is not None)
    for player in seeds:
        games = players - 1
        assert abs(2 * sides[player] - games) <= 1, (player, sides[player], games)


@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 16), data=st.data(), withdraw=st.booleans())
def test_standings_points_sum_to_the_pairings_decided(
    players: int, data: st.DataObject, withdraw: bool
) -> None:
    fmt = choose_format(players)
    history = play_out(fmt, players, data, withdraw=withdraw)
    seeds = list(range(101, 101 + players))
    table = standings(seeds, history)
    assert sum(s.points for s in table) == len(history)
    assert sum(s.played for s in table) == sum(1 if p.is_bye else 2 for p in history)
    assert [s.points for s in table] == sorted((s.points for s in table), reverse=True)
    assert winners(seeds, history)[0] == table[0].player


@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 16), data=st.data(), withdraw=st.booleans())
def test_players_level_on_points_and_tie_break_share_a_place_and_nobody_else_does(
    players: int, data: st.DataObject, withdraw: bool
) -> None:
    fmt = choose_format(players)
    history = play_out(fmt, players, data, withdraw=withdraw)
    seeds = list(range(101, 101 + players))
    table = standings(seeds, history)
    shown = places(table)
    assert len(shown) == len(table)
    for (first, last), standing in zip(shown, table, strict=True):
        level = (standing.points, standing.tiebreak)
        ahead = sum(1 for s in table if (s.points, s.tiebreak) > level)
        level_with = sum(1 for s in table if (s.points, s.tiebreak) == level)
        # A place spans those level with you, after those ahead of you.
        assert (first, last) == (ahead + 1, ahead + level_with)
    # The places shared are exactly those of players level with each other.
    for (a, sa), (b, sb) in itertools.combinations(zip(shown, table, strict=True), 2):
        assert (a == b) == ((sa.points, sa.tiebreak) == (sb.points, sb.tiebreak))
    top = [s.player for s, (first, _) in zip(table, shown, strict=True) if first == 1]
    assert winners(seeds, history) == top


def test_formats_and_rounds_by_the_number_of_players() -> None:
    assert choose_format(8) is Format.ROUND_ROBIN and choose_format(9) is Format.SWISS
    assert [rounds_for(Format.ROUND_ROBIN, n) for n in (3, 4, 5, 8)] == [3, 3, 5, 7]
    assert [rounds_for(Format.SWISS, n) for n in (9, 12, 16, 17)] == [4, 4, 4, 5]


def test_the_circle_gives_an_odd_field_one_bye_each() -> None:
    schedule = circle([1, 2, 3, 4, 5])
    byes = [a if b is None else b for r in schedule for a, b in r if None in (a, b)]
    assert sorted(byes) == [1, 2, 3, 4, 5]  # type: ignore[type-var]


def test_sonneborn_berger_separates_players_level_on_points() -> None:
    # A beats B, B beats C, C beats A; C draws D, A and B beat D. A and B have 2 points:
    # A's win was over B (2 points), B's over C (1.5), so A ranks first.
    seeds = [1, 2, 3, 4]
    history = [
        Pairing(1, 1, 2, PairResult.X),
        Pairing(1, 3, 4, PairResult.DRAW),
        Pairing(2, 2, 3, PairResult.X),
        Pairing(2, 4, 1, PairResult.O),
        Pairing(3, 3, 1, PairResult.X),
        Pairing(3, 2, 4, PairResult.X),
    ]
    assert points(seeds, history) == {1: 2.0, 2: 2.0, 3: 1.5, 4: 0.5}
    table = {s.player: s.tiebreak for s in standings(seeds, history)}
    # A beat B (2) and D (0.5): 2.5. B beat C (1.5) and D (0.5): 2.0. C beat A (2), drew D.
    assert table[1] == 2.5 and table[2] == 2.0 and table[3] == 2.0 + 0.25
    assert [s.player for s in standings(seeds, history)] == [1, 2, 3, 4]


def test_a_withdrawn_player_forfeits_the_rest_of_a_round_robin() -> None:
    seeds = [1, 2, 3, 4]
    round_two = pair_round(Format.ROUND_ROBIN, seeds, {4}, [], 2)
    assert round_two is not None
    forfeits = [p for p in round_two if 4 in (p.x, p.o)]
    assert len(forfeits) == 1 and forfeits[0].result is not None
    assert forfeits[0].score_of(4) == 0.0
    assert pair_round(Format.SWISS, seeds, {2, 3, 4}, [], 1) is None  # one left: no round


def test_a_game_gives_its_pairing_its_result_and_an_absent_x_forfeits() -> None:
    assert game_result(GameStatus.ACTIVE, None, None) is None  # still being played
    assert game_result(GameStatus.FINISHED, Result.X, EndReason.LINE) is PairResult.X
    assert game_result(GameStatus.FINISHED, Result.O, EndReason.TIMEOUT) is PairResult.O
    assert game_result(GameStatus.FINISHED, Result.DRAW, EndReason.FULL) is PairResult.DRAW
    # ❌ never made a first move: the game is aborted (it counts nowhere), but in a
    # tournament the round needs a result: ❌ loses it, a forfeit.
    assert game_result(GameStatus.ABANDONED, None, EndReason.ABORTED) is PairResult.O
    # Closed from outside with no result (the bot left the group), or gone (/forget): a draw.
    assert game_result(GameStatus.ABANDONED, None, EndReason.ABANDONED) is PairResult.DRAW
    assert game_result(None, None, None) is PairResult.DRAW


def test_tournament_words_take_a_time_control_as_play_does() -> None:
    assert parse_tournament_args([]) == TournamentSpec("3x3")
    four = TournamentSpec(board_key(board_size(4)), None, Clock(180, 2))
    assert parse_tournament_args(["4", "3+2"]) == four
    swiss = parse_tournament_args(["1+5", "swiss"])
    assert swiss == TournamentSpec("3x3", Format.SWISS, Clock(60, 5))
    for bad in (["3+"], ["0+2"], ["11+0"], ["3+2", "1+0"], ["4", "3+2+1"]):
        assert parse_tournament_args(bad) is None, bad
