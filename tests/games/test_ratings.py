"""Ratings on a real database: which games are rated, once, in which pool, by how much."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from sqlalchemy import update

from bot.games.db.rows.ratings import RATINGS
from bot.games.events import GameEnded
from bot.games.model import BoardRef, EndReason, GameStatus, GameView, PlayerInfo, Result
from bot.games.ratings.rules import (
    AI_RATINGS,
    BOUND_DEVIATIONS,
    bounded,
    nearest_level,
    rated_game,
    strongest_scored,
)
from bot.games.ratings.use_cases import LADDER_DEVIATION
from bot.games.use_cases import Games
from bot.locales.texts import texts_for
from bot.views.render import render_game, render_stats
from core import glicko2
from core.board import Board
from core.mnk_results import first_player_wins, is_forced_win
from tests.games.test_friends import ALICE, BOB, won_by

ME = PlayerInfo(2001, "Me", "en")


async def lose_to_hard(games: Games, size: int = 3) -> int:
    """Me (X) against hard; I resign after one move: a loss."""
    started = await games.play.start_game(
        ME.id, ME, "user", "hard", board=Board.empty(size) if size != 3 else None
    )
    game = started.game
    assert game is not None
    moved = await games.play.tap(game.id, BoardRef(ME.id), ME, 0, 0)
    assert moved.played
    resigned = await games.resigning.resign(game.id, BoardRef(ME.id), ME)
    assert resigned.played and resigned.game is not None
    return resigned.game.id


async def rated(games: Games, game_id: int) -> GameView:
    game = await games.store.get_game(game_id)
    assert game is not None
    return game


async def test_a_loss_to_hard_moves_the_vs_ai_rating_once(games: Games) -> None:
    heard: list[GameView] = []

    async def hear(event: GameEnded) -> None:
        heard.append(event.game)

    games.store.events.subscribe(GameEnded, hear)
    game = await rated(games, await lose_to_hard(games))
    await games.store.events.idle()
    # Rated where it ended, in the same transaction: the resignation's answer carries it.
    assert game.x_rating_change is not None
    assert game.x_rating_change < 0 and game.o_rating_change is None
    assert [g.id for g in heard] == [game.id] and heard[0].x_rating_change == game.x_rating_change
    (mine,) = await games.ratings.of_player(ME.id)
    assert mine.pool == "ai:3x3" and mine.games == 1
    expected = glicko2.rate(
        glicko2.Rating(),
        [glicko2.Result(glicko2.Rating(AI_RATINGS["3x3"]["hard"], 50.0), 0.0)],
    )
    assert mine.rating == pytest.approx(expected.rating)
    assert mine.last_change == game.x_rating_change
    # Big boards are their own class.
    await lose_to_hard(games, size=6)
    pools = {r.pool for r in await games.ratings.of_player(ME.id)}
    assert pools == {"ai:3x3", "ai:big"}


async def test_a_game_nobody_moved_in_and_an_assisted_game_are_not_rated(games: Games) -> None:
    started = await games.play.start_game(ME.id, ME, "user", "hard")
    assert started.game is not None
    resigned = await games.resigning.resign(started.game.id, BoardRef(ME.id), ME)
    assert resigned.played and resigned.game is not None and not resigned.game.is_rated
    started = await games.play.start_game(ME.id, ME, "user", "easy")
    assert started.game is not None
    await games.assists.hint(started.game.id, BoardRef(ME.id), ME, 0)
    await games.play.tap(started.game.id, BoardRef(ME.id), ME, 0, 4)
    resigned = await games.resigning.resign(started.game.id, BoardRef(ME.id), ME)
    assert resigned.game is not None and resigned.game.assisted
    assert not resigned.game.is_rated
    assert await games.ratings.of_player(ME.id) == []


async def test_a_new_game_over_one_underway_asks_first_and_then_counts_it_lost(
    games: Games,
) -> None:
    started = await games.play.start_game(ME.id, ME, "user", "medium")
    assert started.game is not None
    await games.play.tap(started.game.id, BoardRef(ME.id), ME, 0, 4)
    asked = await games.play.start_game(ME.id, ME, "user", "hard")
    # Nothing ends behind the player's back: nothing started, the game is named.
    assert asked.game is None and asked.closed == ()
    assert asked.underway is not None and asked.underway.id == started.game.id
    assert (await rated(games, started.game.id)).is_active
    again = await games.play.start_game(ME.id, ME, "user", "hard", resign_underway=True)
    (closed,) = again.closed
    assert (closed.status, closed.result, closed.end_reason) == (
        GameStatus.FINISHED,
        "O",
        EndReason.REPLACED,
    )
    assert closed.x_rating_change is not None and closed.x_rating_change < 0
    # /rating and /stats agree: one game, one loss.
    (mine,) = await games.ratings.of_player(ME.id)
    assert mine.games == 1
    record = (await games.records.stats(ME.id)).by_opponent["medium"]
    assert (record.wins, record.losses, record.draws) == (0, 1, 0)


async def test_a_game_nobody_moved_in_is_replaced_without_a_question(games: Games) -> None:
    first = await games.play.start_game(ME.id, ME, "hard", "user")  # the AI moved; I did not
    assert first.game is not None and first.game.ply == 1
    second = await games.play.start_game(ME.id, ME, "user", "easy")
    assert second.game is not None and second.underway is None
    (closed,) = second.closed
    assert (closed.status, closed.end_reason) == (GameStatus.ABANDONED, EndReason.REPLACED)
    assert not closed.is_rated and await games.ratings.of_player(ME.id) == []
    assert (await games.records.stats(ME.id)).by_opponent == {}


async def test_friends_are_rated_once_both_are_rated(games: Games) -> None:
    # Neither is rated in 3×3 between people: a group game counts nowhere yet.
    first = await won_by(games, ALICE, BOB)
    assert not first.is_rated
    assert await games.ratings.of_player(ALICE.id) == []


async def test_a_game_is_rated_once_when_two_instances_end_it_at_once(games: Games) -> None:
    started = await games.play.start_game(ME.id, ME, "user", "hard")
    assert started.game is not None
    await games.play.tap(started.game.id, BoardRef(ME.id), ME, 0, 0)
    # Five resignations at once (the tap delivered again, another instance): one ends it.
    results = await asyncio.gather(
        *(games.resigning.resign(started.game.id, BoardRef(ME.id), ME) for _ in range(5))
    )
    assert sum(r.played for r in results) == 1
    (mine,) = await games.ratings.of_player(ME.id)
    assert mine.games == 1


async def settle_deviation(games: Games, player_id: int, deviation: float) -> None:
    """As if the player had played long enough for their rating to be this sure."""
    async with games.store.transaction() as session:
        await session.execute(
            update(RATINGS).where(RATINGS.c.player_id == player_id).values(deviation=deviation)
        )


async def test_the_ladder_is_opt_in_and_forgetting_leaves_no_name(games: Games) -> None:
    await lose_to_hard(games)
    assert await games.ratings.ladder("ai:3x3") == []
    await games.ratings.set_on_ladder(ME, True)
    # One game: a provisional rating, kept off the ladder until it is established.
    assert await games.ratings.ladder("ai:3x3") == []
    await settle_deviation(games, ME.id, LADDER_DEVIATION - 1)
    (row,) = await games.ratings.ladder("ai:3x3")
    assert row.name == "Me" and row.games == 1
    await games.privacy.forget(ME)
    assert await games.ratings.ladder("ai:3x3") == []
    assert await games.ratings.of_player(ME.id) == []


def test_the_ai_nearest_a_rating() -> None:
    assert nearest_level("3x3", 900) == "easy"
    assert nearest_level("3x3", AI_RATINGS["3x3"]["medium"] + 10) == "medium"
    assert nearest_level("big", AI_RATINGS["big"]["hard"] - 10) == "hard"
    assert nearest_level("big", 5000) == "hard"


@pytest.mark.parametrize(
    ("size", "k", "wins"),
    [
        (3, 3, False),  # tic-tac-toe: a draw
        (4, 3, True),
        (8, 3, True),
        (4, 4, False),
        (5, 4, False),  # (5,5,4): a draw
        (6, 4, True),  # (6,5,4) is a win, so 6×6 is
        (8, 4, True),
        (6, 5, False),
        (8, 5, False),  # (8,8,5): a draw
        (8, 8, False),
    ],
)
def test_the_published_first_player_wins_on_the_bots_boards(size: int, k: int, wins: bool) -> None:
    assert first_player_wins(size, size, k) is wins


def test_the_table_reads_rectangles_either_way_round() -> None:
    assert first_player_wins(3, 4, 3) and first_player_wins(4, 3, 3)
    assert not first_player_wins(3, 3, 3)
    assert first_player_wins(6, 5, 4) and first_player_wins(5, 6, 4)
    assert not first_player_wins(8, 4, 4)  # (m,4,4): a draw


def test_a_provisional_rating_stays_within_reach_of_the_strongest_it_beat() -> None:
    newcomer = glicko2.Rating()
    weak = glicko2.Rating(900.0, 350.0)
    strongest = strongest_scored(None, weak, 1.0)
    assert strongest == 900.0
    new = glicko2.rate(newcomer, [glicko2.Result(weak, 1.0)])
    capped = bounded(newcomer, new, strongest)
    # Below where it stood already, the bound does not take rating away ...
    assert capped == new
    # ... but a rating far above every win is brought back to strongest + 2·RD′.
    high = glicko2.Rating(2600.0, 300.0)
    capped = bounded(newcomer, high, 1200.0)
    assert capped.rating == pytest.approx(1200.0 + BOUND_DEVIATIONS * 300.0)
    assert capped.deviation == high.deviation
    # An established rating is Glicko-2's alone, and a loss records no new strongest.
    settled = glicko2.Rating(2000.0, 60.0)
    assert bounded(settled, glicko2.Rating(2100.0, 58.0), 1200.0).rating == 2100.0
    assert strongest_scored(1200.0, glicko2.Rating(2500.0), 0.0) == 1200.0
    assert strongest_scored(1200.0, glicko2.Rating(1400.0), 0.5) == 1400.0


async def test_hard_on_a_board_the_first_player_wins_by_force_is_unrated(games: Games) -> None:
    started = await games.play.start_game(ME.id, ME, "user", "hard", board=Board.empty(4, 3))
    game = started.game
    assert game is not None and is_forced_win(game.board)
    assert (await games.play.tap(game.id, BoardRef(ME.id), ME, 0, 5)).played
    resigned = await games.resigning.resign(game.id, BoardRef(ME.id), ME)
    assert resigned.game is not None and resigned.game.is_finished
    assert not resigned.game.is_rated
    assert await games.ratings.of_player(ME.id) == []
    # A win there is no more rated than a loss.
    won = replace(resigned.game, result=Result.X, end_reason=EndReason.LINE)
    assert rated_game(won) is None
    # Kept in /stats, apart and marked; and the final board says why it is unrated.
    stats = await games.records.stats(ME.id)
    assert stats.by_opponent == {} and stats.unrated.losses == 1
    tr = texts_for("en")
    assert tr.STATS_UNRATED.format(wins=0, losses=1, draws=0) in render_stats(stats, tr)
    assert tr.UNRATED_FORCED_WIN in render_game(resigned.game).text
    # The same size with four in a row is no forced win: rated.
    await lose_to_hard(games, size=4)
    (mine,) = await games.ratings.of_player(ME.id)
    assert mine.pool == "ai:big" and mine.games == 1
