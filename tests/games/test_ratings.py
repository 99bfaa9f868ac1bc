"""Ratings on a real database: which games are rated, once, in which pool, by how much."""

from __future__ import annotations

import asyncio

import pytest

from bot.games.model import BoardRef, GameStatus, PlayerInfo
from bot.games.rating_rules import AI_RATINGS, nearest_level
from bot.games.use_cases import Games
from core import glicko2
from core.board import Board
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
    resigned = await games.play.resign(game.id, BoardRef(ME.id), ME)
    assert resigned.played and resigned.game is not None
    return resigned.game.id


async def test_a_loss_to_hard_moves_the_vs_ai_rating_once(games: Games) -> None:
    game_id = await lose_to_hard(games)
    rated = await games.ratings.rate(game_id)
    assert rated is not None and rated.x_rating_change is not None
    assert rated.x_rating_change < 0 and rated.o_rating_change is None
    # Rated once: a second call (another instance, a retry) changes nothing.
    assert await games.ratings.rate(game_id) is None
    (mine,) = await games.ratings.of_player(ME.id)
    assert mine.pool == "ai:3x3" and mine.games == 1
    expected = glicko2.rate(
        glicko2.Rating(),
        [glicko2.Result(glicko2.Rating(AI_RATINGS["3x3"]["hard"], 50.0), 0.0)],
    )
    assert mine.rating == pytest.approx(expected.rating)
    assert mine.last_change == rated.x_rating_change
    # Big boards are their own class.
    await games.ratings.rate(await lose_to_hard(games, size=6))
    pools = {r.pool for r in await games.ratings.of_player(ME.id)}
    assert pools == {"ai:3x3", "ai:big"}


async def test_a_game_nobody_moved_in_and_an_assisted_game_are_not_rated(games: Games) -> None:
    started = await games.play.start_game(ME.id, ME, "user", "hard")
    assert started.game is not None
    resigned = await games.play.resign(started.game.id, BoardRef(ME.id), ME)
    assert resigned.played
    assert await games.ratings.rate(started.game.id) is None
    started = await games.play.start_game(ME.id, ME, "user", "easy")
    assert started.game is not None
    await games.assists.hint(started.game.id, BoardRef(ME.id), ME, 0)
    await games.play.tap(started.game.id, BoardRef(ME.id), ME, 0, 4)
    resigned = await games.play.resign(started.game.id, BoardRef(ME.id), ME)
    assert resigned.game is not None and resigned.game.assisted
    assert await games.ratings.rate(started.game.id) is None
    assert await games.ratings.of_player(ME.id) == []


async def test_walking_away_from_the_ai_counts_as_a_loss(games: Games) -> None:
    started = await games.play.start_game(ME.id, ME, "user", "medium")
    assert started.game is not None
    await games.play.tap(started.game.id, BoardRef(ME.id), ME, 0, 4)
    again = await games.play.start_game(ME.id, ME, "user", "medium")  # closes the first
    (closed,) = again.closed
    assert closed.status == GameStatus.ABANDONED
    rated = await games.ratings.rate(closed.id)
    assert rated is not None and rated.x_rating_change is not None and rated.x_rating_change < 0


async def test_friends_are_rated_once_both_are_rated(games: Games) -> None:
    # Neither is rated in 3×3 between people: a group game counts nowhere yet.
    first = await won_by(games, ALICE, BOB)
    assert await games.ratings.rate(first.id) is None
    assert await games.ratings.of_player(ALICE.id) == []


async def test_a_game_is_rated_once_when_two_instances_rate_it_at_once(games: Games) -> None:
    game_id = await lose_to_hard(games)
    results = await asyncio.gather(*(games.ratings.rate(game_id) for _ in range(5)))
    assert sum(r is not None for r in results) == 1
    (mine,) = await games.ratings.of_player(ME.id)
    assert mine.games == 1


async def test_the_ladder_is_opt_in_and_forgetting_leaves_no_name(games: Games) -> None:
    await games.ratings.rate(await lose_to_hard(games))
    assert await games.ratings.ladder("ai:3x3") == []
    await games.ratings.set_on_ladder(ME, True)
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


async def test_a_board_drawn_after_a_crash_shows_its_game_rated(games: Games) -> None:
    # The game ended, and the process died before rating it: the board outbox, which draws
    # every board left behind, rates it before drawing.
    game_id = await lose_to_hard(games)
    assert game_id in await games.outbox.behind()
    drawn = await games.outbox.game(game_id)
    assert drawn is not None and drawn.x_rating_change is not None
    assert (await games.outbox.behind())[game_id] == drawn.version
