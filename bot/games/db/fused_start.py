"""PostgreSQL: a new game in a chat that has no live game, in one statement (no BEGIN or COMMIT).

Starting a game is the player's upsert, a look for the chat's live games (to close them), the
game's INSERT and the AI's opening moves: six round trips with BEGIN and COMMIT, before the
player sees a board. When the chat has no live game (the usual case: the last one ended), it is
one statement, which PostgreSQL runs atomically:

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
The game is written in the language its creator chose with /language, else their client's, as
the long way writes it.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    bindparam,
    exists,
    false,
    func,
    literal_column,
    select,
)
from sqlalchemy.dialects.postgresql import insert

from bot.games.db import fused_writes, statements
from bot.games.db.models import HandledUpdate, Player
from bot.games.model import LIVE, PlayerInfo, UpdateClaim

_PLAYERS = Player.__table__
_HANDLED = HandledUpdate.__table__
_GAMES = statements.GAMES
#: The games' columns a new game sets, beside its view's: what `store.insert` writes.
_OWN_COLUMNS = ("board", "variant", "size", "k", "version", "created_at", "updated_at")


def parameters(
    game: dict[str, Any],
    player: PlayerInfo,
    moves: list[dict[str, Any]],
    claim: UpdateClaim | None,
    now: datetime,
) -> dict[str, Any]:
    """The statement's parameters: the game's columns and the moves' rows (as `store.insert`
    writes them), the player as the players table holds them, and the update to claim."""
    return {
        **game,
        "player_id": player.id,
        "player_name": player.name,
        "player_language": player.language_code,
        "now": now,
        **({} if claim is None else {"update_id": claim.update_id}),
        **fused_writes.move_arrays(moves),
    }


@lru_cache(maxsize=4)
def statement(with_moves: bool, with_claim: bool) -> Any:
    """The statement, built once (see `statements.update_of`)."""
    upsert = insert(_PLAYERS).values(
        id=bindparam("player_id"),
        name=bindparam("player_name"),
        language_code=bindparam("player_language"),
        created_at=bindparam("now"),
        updated_at=bindparam("now"),
    )
    player = (
        upsert.on_conflict_do_update(
            index_elements=[_PLAYERS.c.id],
            set_={
                "name": upsert.excluded.name,
                "language_code": upsert.excluded.language_code,
                "updated_at": upsert.excluded.updated_at,
            },
        )
        .returning(_PLAYERS.c.chosen_language)
        .cte("player")
    )
    columns = (*statements.VIEW_COLUMNS, *_OWN_COLUMNS)
    values = [
        func.coalesce(select(player.c.chosen_language).scalar_subquery(), _param("language"))
        if name == "language"
        else _param(name)
        for name in columns
    ]
    # The statuses as constants: an IN list of parameters is expanded per run, which the
    # statement compiled once (`writes._compiled`) cannot be.
    statuses = [literal_column(f"'{status.value}'") for status in LIVE]
    live = exists().where(_GAMES.c.chat_id == _param("chat_id"), _GAMES.c.status.in_(statuses))
    update_id = bindparam("update_id", type_=BigInteger)
    claimed_before = exists().where(_HANDLED.c.update_id == update_id)
    idle = ~live & ~claimed_before if with_claim else ~live
    game = (
        _GAMES.insert()
        .from_select(list(columns), select(*values).where(idle))
        .returning(_GAMES.c.id)
        .cte("game")
    )
    fused = select(
        select(game.c.id).scalar_subquery().label("game_id"),
        select(player.c.chosen_language).scalar_subquery().label("chosen_language"),
        (claimed_before if with_claim else false()).label("claimed_before"),
    )
    if with_claim:
        now = bindparam("now", type_=DateTime(timezone=True))
        claimed = _HANDLED.insert().from_select(
            ["update_id", "handled_at"], select(update_id, now).select_from(game)
        )
        fused = fused.add_cte(claimed.cte("claimed"))
    if with_moves:
        fused = fused.add_cte(fused_writes.insert_moves(game.c.id, game).cte("moved"))
    return fused


def _param(name: str) -> Any:
    return bindparam(name, type_=_GAMES.c[name].type)
