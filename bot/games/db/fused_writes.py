"""PostgreSQL: a move's writes in one statement, one round trip, no BEGIN or COMMIT.

A tap writes three things at its commit: the game's versioned UPDATE, the moves and the
update's claim. Sent one by one they are five round trips with BEGIN and COMMIT, and each wakes
the server and then the bot. Here they are one statement, which PostgreSQL runs atomically:

    WITH changed AS (UPDATE games … WHERE id AND version AND the update is not claimed
                     RETURNING id),
         claimed AS (INSERT INTO handled_updates SELECT … FROM changed),
         moved   AS (INSERT INTO moves SELECT … FROM changed, unnest(the moves))
    SELECT rows changed, whether the update was claimed already, the sender's language

Nothing is claimed or stored unless the game changed, and the game changes only if its version
is the one read and the update was not claimed; an instance that claims the same update at the
same moment breaks the claim's primary key, which undoes the whole statement (a lost race, as
before). The caller gets what the separate statements would have told it (`apply`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    Integer,
    String,
    Text,
    bindparam,
    cast,
    false,
    func,
    null,
    select,
    true,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db import statements
from bot.games.db.batch import GuardFailed, Later
from bot.games.db.models import Player

_PLAYERS = Player.__table__
#: The versioned UPDATE's own parameters, beside the columns it sets.
_UPDATE_KEYS = frozenset({"game_id", "old_version", "version", "updated_at"})


@dataclass(frozen=True)
class FusedMove:
    """A move's writes as one statement: run `statement` with `parameters`, then `apply` its
    row to the writes it stands for."""

    statement: Any
    parameters: dict[str, Any]
    claim: Later | None

    def apply(self, row: Any) -> None:
        """What the separate statements would have said: the claim's row (the sender's
        language), or the failure of the first whose condition did not hold."""
        changed, claimed_before, chosen_language = row
        if not changed:
            if self.claim is not None and claimed_before:
                raise GuardFailed
            raise StaleDataError("the row changed since it was read (another writer came first)")
        if self.claim is not None:
            self.claim.row = (chosen_language,)


def fuse(writes: list[Later]) -> FusedMove | None:
    """The writes as one statement if they are a move's (a versioned UPDATE of a game, its
    moves, the update's claim: the moves and the claim optional); None otherwise."""
    rest = list(writes)
    claim = None
    if rest and rest[-1].statement is statements.claim_statement("postgresql") and rest[-1].guard:
        claim = rest.pop()
    if not rest or not rest[0].one_change or not isinstance(rest[0].parameters, dict):
        return None
    update = rest.pop(0)
    columns = frozenset(update.parameters) - _UPDATE_KEYS
    if update.statement is not statements.update_of(columns):
        return None
    moves = rest.pop(0) if rest and rest[0].statement is statements.INSERT_MOVES else None
    if rest:
        return None
    parameters = dict(update.parameters)
    if claim is not None:
        parameters.update(claim.parameters)
    if moves is not None:
        parameters.update(move_arrays(moves.parameters))
    statement = _fused(columns, claim is not None, moves is not None)
    return FusedMove(statement, parameters, claim)


#: The moves' columns, each sent as one array parameter of text. asyncpg knows text[] from
#: the start; an integer[] would cost every new connection three more round trips the first
#: time (it looks the array type up in the server's catalog, with JIT switched off meanwhile).
_MOVE_ARRAYS = {"plies": "ply", "cells": "cell", "marks": "mark", "players": "player_id"}


def move_arrays(rows: list[dict[str, Any]]) -> dict[str, list[str | None]]:
    """The parameters of `insert_moves`: the rows of `statements.INSERT_MOVES`, by column."""
    return {
        name: [None if row[column] is None else str(row[column]) for row in rows]
        for name, column in _MOVE_ARRAYS.items()
    }


def insert_moves(game_id: Any, source: Any) -> Any:
    """INSERT of the moves (`move_arrays`) of the game whose id is `game_id` in `source`,
    made when the moves' statement is: at the game's `updated_at`."""
    played = (
        func.unnest(*(bindparam(name, type_=ARRAY(Text)) for name in _MOVE_ARRAYS))
        .table_valued("ply", "cell", "mark", "player_id")
        .render_derived(name="played")
    )
    return statements.MOVES.insert().from_select(
        ["game_id", "ply", "cell", "mark", "player_id", "created_at"],
        select(
            game_id,
            cast(played.c.ply, Integer),
            cast(played.c.cell, Integer),
            played.c.mark,
            cast(played.c.player_id, BigInteger),
            bindparam("updated_at", type_=DateTime(timezone=True)),
        )
        .select_from(source)
        .join(played, true()),
    )


@lru_cache(maxsize=256)
def _fused(columns: frozenset[str], with_claim: bool, with_moves: bool) -> Any:
    """The statement for this set of columns, built once (see `statements.update_of`)."""
    claimed_before = statements.CLAIMED_BEFORE
    update = statements.new_update_of(columns)
    if with_claim:
        update = update.where(~claimed_before)
    changed = update.returning(statements.GAMES.c.id).cte("changed")
    fused = select(
        select(func.count()).select_from(changed).scalar_subquery().label("changed"),
        (claimed_before if with_claim else false()).label("claimed_before"),
        (
            select(_PLAYERS.c.chosen_language)
            .where(_PLAYERS.c.id == bindparam("user_id"))
            .scalar_subquery()
            if with_claim
            else cast(null(), String)
        ).label("chosen_language"),
    )
    if with_claim:
        fused = fused.add_cte(statements.claim_from(changed).cte("claimed"))
    if with_moves:
        fused = fused.add_cte(insert_moves(changed.c.id, changed).cte("moved"))
    return fused
