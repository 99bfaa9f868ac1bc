"""How a game ends: the one place where an ending is settled (lila's `Finisher` is the model).

Every way a game ends — a winning or drawing move, resigning, /stop, a loss on time, a block,
/forget, a new game over a live one, a challenge that lapses — is a write of the game that takes
it from live (open or active) to over, and every such write goes through `store.save`, which
calls `settle` in the same transaction before the game's versioned UPDATE. So a game is rated
exactly once, together with its end: the rating rows and the game's `x_rating_change` /
`o_rating_change` commit or roll back with the move that ended it, and of two instances ending
the same game one wins the version race and rates it. How it ended is the game's `end_reason`
(`EndReason`); the game as settled is the event every view of the game hears (the store tells
its listeners after the commit, `bot.games.events.GameEnded`).

Which games are rated, in which pool, for what score, is `rating_rules`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.games.db.models import utcnow
from bot.games.db.rows import ratings as rating_rows
from bot.games.db.writes import CoreTransaction
from bot.games.model import LIVE, GameView
from bot.games.ratings.rules import (
    AI_PREFIX,
    RatedGame,
    ai_rating,
    bounded,
    rated_game,
    repeat_weight,
    strongest_scored,
)
from core import glicko2
from core.board import O, X

#: Where an ending is settled: the write transaction that ends the game.
Db = CoreTransaction

#: Rated games between the same two people within this long count less (`repeat_weight`).
REPEAT_WINDOW = timedelta(days=1)


def ends(before: GameView, after: GameView) -> bool:
    """Whether a write from `before` to `after` ends the game."""
    return before.status in LIVE and after.status not in LIVE


async def settle(session: Db, game: GameView) -> GameView:
    """The game that has just ended, rated if it is a rated kind (see `rating_rules`): its
    players' ratings stored in `session`'s transaction, and their changes on the game."""
    rated = rated_game(game)
    if rated is None:
        return game
    changes = await _apply(session, game, rated)
    if changes is None:
        return game
    return replace(game, x_rating_change=changes.get(X), o_rating_change=changes.get(O))


async def _apply(session: Db, game: GameView, rated: RatedGame) -> dict[str, int] | None:
    """The new ratings stored; each person's change by mark (None: not rated after all)."""
    now = utcnow()
    ids: dict[str, int] = {}
    for mark in rated.scores:
        player_id = game.player_id_of(mark)
        if player_id is None:
            return None
        ids[mark] = player_id
    before = {
        mark: await rating_rows.stored_rating(session, ids[mark], rated.pool)
        for mark in rated.scores
    }
    if rated.ai_level is not None:
        (mark,) = rated.scores
        opponents = {mark: ai_rating(rated.pool.removeprefix(AI_PREFIX), rated.ai_level)}
        weight = 1.0
    else:
        if not game.is_between_strangers and None in before.values():
            return None  # a friendly game counts once both are rated
        opponents = {X: before[O] or glicko2.Rating(), O: before[X] or glicko2.Rating()}
        earlier = await rating_rows.games_together(
            session, ids[X], ids[O], game.id, now - REPEAT_WINDOW
        )
        weight = repeat_weight(earlier)
    changes = {}
    for mark, score in rated.scores.items():
        old = before[mark] or glicko2.Rating()
        stored = await rating_rows.strongest_scored(session, ids[mark], rated.pool)
        strongest = strongest_scored(stored, opponents[mark], score)
        new = glicko2.rate(old, [glicko2.Result(opponents[mark], score, weight)])
        new = bounded(old, new, strongest)
        changes[mark] = round(new.rating - old.rating)
        await rating_rows.store_rating(
            session, ids[mark], rated.pool, (new, strongest), changes[mark], now
        )
    return changes
