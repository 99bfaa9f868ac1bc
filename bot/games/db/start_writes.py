"""A new game in a chat that has no live game, in one round trip.

Starting a game is the player's upsert, a look for the chat's live games (to close them), the
game's INSERT, the AI's opening moves and the update's claim: on PostgreSQL six round trips
with BEGIN and COMMIT before the player sees a board, on SQLite four hops to its thread. When
the chat has no live game (the usual case: the last one ended), it is one round trip.

On PostgreSQL, one statement, which the server runs atomically:

    WITH player  AS (INSERT INTO players … ON CONFLICT (id) DO UPDATE …
                     RETURNING chosen_language),
         game    AS (INSERT INTO games SELECT … WHERE NOT EXISTS (a live game in the chat)
                     AND NOT EXISTS (the update's claim) RETURNING id),
         claimed AS (INSERT INTO handled_updates SELECT … FROM game),
         moved   AS (INSERT INTO moves SELECT … FROM game, unnest(the moves))
    SELECT (SELECT id FROM game), (SELECT chosen_language FROM player), the claim's existence

No id back: the update was claimed already (nothing to do), or the chat has a live game (the
caller takes the long way, which closes it). An instance that claims the same update at the
same moment breaks the claim's primary key, which undoes the whole statement (a lost race).

SQLite has no data-modifying CTEs: there, the same upsert, guarded INSERT and claim are a
batch sent in one hop with its commit (`sqlite_driver`); a game INSERT that the guard stops
undoes the batch, and the caller takes the long way, which tells a claimed update from a live
game. An AI's opening moves (it plays X) take the long way there.

Either way the game is written in the language its creator chose with /language, else their
client's, as the long way writes it.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    bindparam,
    exists,
    false,
    func,
    literal_column,
    select,
)

from bot.games.db import statements
from bot.games.db.batch import Later
from bot.games.model import LIVE, PlayerInfo, UpdateClaim

_PLAYERS = statements.PLAYERS
_GAMES = statements.GAMES
#: The games' columns a new game sets, beside its view's: what `store.insert` writes.
_OWN_COLUMNS = ("board", "variant", "size", "k", "version", "created_at", "updated_at")


def postgresql_parameters(
    game: dict[str, Any],
    player: PlayerInfo,
    moves: list[dict[str, Any]],
    claim: UpdateClaim | None,
    now: datetime,
) -> dict[str, Any]:
    """PostgreSQL's statement's parameters: the game's columns and the moves' rows (as
    `store.insert` writes them), the player as the players table holds them, and the update
    to claim."""
    from bot.games.db import fused_writes  # PostgreSQL's: imported where needed

    return {
        **game,
        **statements.player_parameters(player, now),
        **({} if claim is None else {"update_id": claim.update_id}),
        **fused_writes.move_arrays(moves),
    }


@lru_cache(maxsize=4)
def postgresql_statement(with_moves: bool, with_claim: bool) -> Any:
    """PostgreSQL's statement, built once (see `statements.update_of`)."""
    from bot.games.db import fused_writes

    player = statements.new_player_upsert("postgresql").cte("player")
    chosen = select(player.c.chosen_language).scalar_subquery()
    game = _guarded_insert(chosen, with_claim).cte("game")
    fused = select(
        select(game.c.id).scalar_subquery().label("game_id"),
        chosen.label("chosen_language"),
        (statements.CLAIMED_BEFORE if with_claim else false()).label("claimed_before"),
    )
    if with_claim:
        fused = fused.add_cte(statements.claim_from(game).cte("claimed"))
    if with_moves:
        fused = fused.add_cte(fused_writes.insert_moves(game.c.id, game).cte("moved"))
    return fused


def sqlite_writes(
    game: dict[str, Any], player: PlayerInfo, claim: UpdateClaim | None, now: datetime
) -> tuple[Later, Later, Later | None]:
    """SQLite's batch: the player's upsert (its row: the chosen language), the game's guarded
    INSERT (its row: the id; none stops the batch) and the claim."""
    upsert, guarded, claim_insert = _sqlite_statements(claim is not None)
    player_parameters = statements.player_parameters(player, now)
    claimed = None
    if claim is not None:
        claimed = Later(claim_insert, {"update_id": claim.update_id, "now": now})
    return (
        Later(upsert, player_parameters),
        Later(
            guarded,
            {
                **game,
                "player_id": player.id,
                **({} if claim is None else {"update_id": claim.update_id}),
            },
            guard=True,
        ),
        claimed,
    )


@lru_cache(maxsize=2)
def _sqlite_statements(with_claim: bool) -> tuple[Any, Any, Any]:
    chosen = (
        select(_PLAYERS.c.chosen_language)
        .where(_PLAYERS.c.id == bindparam("player_id"))
        .scalar_subquery()
    )
    claim_insert = statements.HANDLED.insert().values(
        update_id=statements.UPDATE_ID, handled_at=statements.NOW
    )
    return statements.new_player_upsert("sqlite"), _guarded_insert(chosen, with_claim), claim_insert


def _guarded_insert(chosen_language: Any, with_claim: bool) -> Any:
    """The game's INSERT, unless its chat has a live game (or its update was claimed)."""
    columns = (*statements.VIEW_COLUMNS, *_OWN_COLUMNS)
    values = [
        func.coalesce(chosen_language, _param("language")) if name == "language" else _param(name)
        for name in columns
    ]
    # The statuses as constants: an IN list of parameters is expanded per run, which the
    # statement compiled once (`writes._compiled`) cannot be.
    statuses = [literal_column(f"'{status.value}'") for status in LIVE]
    live = exists().where(_GAMES.c.chat_id == _param("chat_id"), _GAMES.c.status.in_(statuses))
    idle = ~live & ~statements.CLAIMED_BEFORE if with_claim else ~live
    return (
        _GAMES.insert()
        .from_select(list(columns), select(*values).where(idle))
        .returning(_GAMES.c.id)
    )


def _param(name: str) -> Any:
    return bindparam(name, type_=_GAMES.c[name].type)
