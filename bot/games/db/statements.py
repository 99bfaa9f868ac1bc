"""The statements of the games store, built once: SQLAlchemy then finds each one compiled in
its cache at once (building a statement per call cost more CPU than running it), and the hot
path speaks Core, with no ORM unit of work or identity map."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import DateTime, Table, bindparam, exists, select

from bot.games.db.models import Game, HandledUpdate, Match, Move, Player, TournamentPairing
from bot.games.model import LIVE, PlayerInfo

# Declarative classes type `__table__` as a FromClause; each is a Table.
GAMES = cast(Table, Game.__table__)
MOVES = cast(Table, Move.__table__)
PLAYERS = cast(Table, Player.__table__)
HANDLED = cast(Table, HandledUpdate.__table__)
MATCHES = cast(Table, Match.__table__)
PAIRINGS = cast(Table, TournamentPairing.__table__)
NOW = bindparam("now", type_=DateTime(timezone=True))
MATCH_SCORE_COLUMNS = ("best_of", "a_halves", "b_halves", "played", "status")
_x, _o, _t, _s, _invited = (
    Player.__table__.alias(name)
    for name in ("x_player", "o_player", "t_player", "s_player", "invited")
)
VIEW = select(
    GAMES,
    _x.c.name.label("x_name"),
    _o.c.name.label("o_name"),
    _t.c.name.label("t_name"),
    _s.c.name.label("s_name"),
    _invited.c.name.label("invited_name"),
    # A match game's board shows the match's score (`reads.match_score_of`).
    *(MATCHES.c[name].label(f"match_{name}") for name in MATCH_SCORE_COLUMNS),
    # A tournament's game says so on its board (a game is in one pairing at most).
    PAIRINGS.c.tournament_id.label("tournament_id"),
).select_from(
    GAMES.outerjoin(_x, _x.c.id == GAMES.c.x_player_id)
    .outerjoin(_o, _o.c.id == GAMES.c.o_player_id)
    .outerjoin(_t, _t.c.id == GAMES.c.t_player_id)
    .outerjoin(_s, _s.c.id == GAMES.c.s_player_id)
    .outerjoin(_invited, _invited.c.id == GAMES.c.invited_player_id)
    .outerjoin(MATCHES, MATCHES.c.id == GAMES.c.match_id)
    .outerjoin(PAIRINGS, PAIRINGS.c.game_id == GAMES.c.id)
)
# The view's fields that live in columns of the same name; `board` is stored as text and the
# players' names come from the players table.
VIEW_COLUMNS = (
    "chat_id",
    "message_id",
    "inline_message_id",
    "x_kind",
    "o_kind",
    "x_player_id",
    "o_player_id",
    "status",
    "result",
    "end_reason",
    "language",
    "created_by_id",
    "invited_player_id",
    "invited_username",
    "rematch_of_id",
    "nudges",
    "turn_started_at",
    "assisted",
    "last_cell",
    "seats",
    "t_player_id",
    "s_player_id",
    "out",
    "turn_mark",
    "second_chat_id",
    "second_message_id",
    "second_language",
    "x_rating_change",
    "o_rating_change",
    "clock_seconds",
    "clock_delay",
    "x_clock",
    "o_clock",
    "flag_at",
    "match_id",
    "match_game",
    "resign_asked_by",
    "resign_asked_ply",
    "draw_offered_by",
    "draw_offer_ply",
)
BY_ID = VIEW.where(GAMES.c.id == bindparam("game_id"))
INSERT_GAME = GAMES.insert().returning(GAMES.c.id)
# The columns of a new game: its view's, and those `store.insert` fills in.
NEW_GAME_COLUMNS = (
    *VIEW_COLUMNS,
    *("public_id", "board", "variant", "size", "k", "version", "created_at", "updated_at"),
)
_new_game = {name: bindparam(name, type_=GAMES.c[name].type) for name in NEW_GAME_COLUMNS}
_LIVE_STATUSES = [status.value for status in LIVE]
# INSERT_GAME unless the game's chat has a live game (a game between strangers lives in both
# players' chats): no row back then. Two EXISTS, one per indexed column.
INSERT_GAME_IN_IDLE_CHAT = (
    GAMES.insert()
    .from_select(
        list(NEW_GAME_COLUMNS),
        select(*_new_game.values()).where(
            ~exists().where(
                GAMES.c.chat_id == _new_game["chat_id"], GAMES.c.status.in_(_LIVE_STATUSES)
            ),
            ~exists().where(
                GAMES.c.second_chat_id == _new_game["chat_id"],
                GAMES.c.status.in_(_LIVE_STATUSES),
            ),
        ),
    )
    .returning(GAMES.c.id)
)
INSERT_MOVES = MOVES.insert()
# Where a board lives is not game state: no new version.
ATTACH_MESSAGE = (
    GAMES.update()
    .where(GAMES.c.id == bindparam("game_id"))
    .values(message_id=bindparam("message_id"), updated_at=bindparam("updated_at"))
)
ATTACH_SECOND_MESSAGE = (
    GAMES.update()
    .where(GAMES.c.id == bindparam("game_id"))
    .values(second_message_id=bindparam("board_message_id"), updated_at=bindparam("updated_at"))
)
MOVES_OF = (
    select(MOVES.c.ply, MOVES.c.cell, MOVES.c.mark, MOVES.c.player_id)
    .where(MOVES.c.game_id == bindparam("game_id"))
    .order_by(MOVES.c.ply)
)
# An undo: the moves after the ones kept.
DELETE_MOVES_AFTER = MOVES.delete().where(
    MOVES.c.game_id == bindparam("game_id"), MOVES.c.ply > bindparam("kept")
)
DELETE_GAME = GAMES.delete().where(
    GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("old_version")
)


@lru_cache(maxsize=256)
def update_of(columns: frozenset[str]) -> Any:
    """The versioned UPDATE of these columns, built once per set (a move changes the same few
    columns every time): SQLAlchemy then finds it compiled in its cache at once."""
    return (
        GAMES.update()
        .where(GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("old_version"))
        .values(
            {
                **{name: bindparam(name) for name in sorted(columns)},
                "version": bindparam("version"),
                "updated_at": bindparam("updated_at"),
            }
        )
    )


def upsert_for(dialect: str) -> Any:
    """The dialect's INSERT with ON CONFLICT. Imported when first needed: importing the
    PostgreSQL dialect takes a tenth of a second of a SQLite bot's start-up."""
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert
    from sqlalchemy.dialects.postgresql import insert as postgresql_insert

    return postgresql_insert


@lru_cache(maxsize=4)
def player_upsert(dialect: str) -> Any:
    """`INSERT … ON CONFLICT (id) DO UPDATE` of a player's name and client language, returning
    the language they chose with /language (its parameters: `player_parameters`)."""
    upsert = upsert_for(dialect)(PLAYERS).values(
        id=bindparam("player_id"),
        name=bindparam("player_name"),
        language_code=bindparam("player_language"),
        created_at=NOW,
        updated_at=NOW,
    )
    return upsert.on_conflict_do_update(
        index_elements=[PLAYERS.c.id],
        set_={
            "name": upsert.excluded.name,
            "language_code": upsert.excluded.language_code,
            "updated_at": upsert.excluded.updated_at,
        },
    ).returning(PLAYERS.c.chosen_language)


def player_parameters(player: PlayerInfo, now: datetime) -> dict[str, Any]:
    """The parameters of `player_upsert`: the player as the table holds them
    (`player_rows.as_stored`)."""
    return {
        "player_id": player.id,
        "player_name": player.name,
        "player_language": player.language_code,
        "now": now,
    }


@lru_cache(maxsize=4)
def claim_statement(dialect: str) -> Any:
    """`INSERT … ON CONFLICT DO NOTHING RETURNING <the sender's chosen language>`: one
    statement says whether the update is new and, if it is, how to speak to its sender."""
    insert_into = upsert_for(dialect)
    chosen = (
        select(Player.chosen_language).where(Player.id == bindparam("user_id")).scalar_subquery()
    )
    return (
        insert_into(HandledUpdate)
        .values(update_id=bindparam("update_id"), handled_at=bindparam("now"))
        .on_conflict_do_nothing(index_elements=[HandledUpdate.update_id])
        .returning(chosen)
    )
