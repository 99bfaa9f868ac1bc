"""SQLAlchemy models. The schema itself is owned by the Alembic migrations in `migrations/`."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from bot.games.matches.rules import MatchStatus
from bot.games.model import GameStatus


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime | None) -> datetime | None:
    """A stored time with its zone: SQLite hands back naive ones; every time here is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


class Base(DeclarativeBase): ...


class Player(Base):
    """A Telegram user who has played."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(128))
    language_code: Mapped[str | None] = mapped_column(String(16))
    # Chosen with /language; wins over the client's language_code.
    chosen_language: Mapped[str | None] = mapped_column(String(16))
    # Shown on the global ladder (/top): opt-in.
    on_ladder: Mapped[bool] = mapped_column(Boolean, server_default=false())
    # The waiting message of a search their block of the bot ended: told once they are back.
    away_search_message_id: Mapped[int | None] = mapped_column(BigInteger)
    # Since when they have blocked the bot (None: they have not, or are back and were told).
    away_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )


class Game(Base):
    """One game on one board message.

    `version` is the game's version counter: every UPDATE says `WHERE id = ? AND version = ?`,
    so of two concurrent writers exactly one wins. The store's writes are Core statements and
    check it themselves (`bot.games.db.store`); the mapper's `version_id_col` makes a write
    through an ORM session (a test's, a tool's) check it too.
    """

    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_chat_status", "chat_id", "status"),
        Index("ix_games_second_chat_status", "second_chat_id", "status"),
        # One game per inline message, and at most one rematch per game: races end in the
        # database, not in two games.
        UniqueConstraint("inline_message_id", name="uq_games_inline_message_id"),
        UniqueConstraint("rematch_of_id", name="uq_games_rematch_of_id"),
        UniqueConstraint("public_id", name="uq_games_public_id"),
        # A match's games, one per number: two instances never start its next game twice.
        UniqueConstraint("match_id", "match_game", name="uq_games_match_game"),
        # The board outbox: games whose board shows an older version than the game's.
        Index(
            "ix_games_behind",
            "id",
            sqlite_where=text("shown_version < version"),
            postgresql_where=text("shown_version < version"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Its name in links and the Mini App: random, so one tells nothing of another (`public_ids`).
    public_id: Mapped[str] = mapped_column(String(32))
    chat_id: Mapped[int | None] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    # Strangers' games: ⭕'s board, chat and language (`chat_id`/`message_id` are ❌'s).
    second_chat_id: Mapped[int | None] = mapped_column(BigInteger)
    second_message_id: Mapped[int | None] = mapped_column(BigInteger)
    second_language: Mapped[str | None] = mapped_column(String(16))
    # Games posted through inline mode live on an inline message instead of a chat message.
    inline_message_id: Mapped[str | None] = mapped_column(String(128))
    # Hyperskill cells, `_` for empty, row by row: `X_O______` (size² cells); ultimate's 81
    # cells small board by small board.
    board: Mapped[str] = mapped_column(String(96))
    # "classic" (any size) or "ultimate".
    variant: Mapped[str] = mapped_column(String(16), default="classic", server_default="classic")
    # The cell of the last move: in ultimate it sends the next player to a small board.
    last_cell: Mapped[int | None] = mapped_column(Integer)
    # Games of three or four players: the third (T, 🔺) and fourth (S, 🟦) seats, the marks
    # of those who are out (resigned or timed out), and whose turn it is.
    seats: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    t_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    s_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    out: Mapped[str] = mapped_column(String(4), default="", server_default="")
    turn_mark: Mapped[str | None] = mapped_column(String(1))
    # A hint or an undo was used: the game counts apart in the stats.
    assisted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    size: Mapped[int] = mapped_column(Integer, default=3, server_default="3")
    # Marks in a row needed to win.
    k: Mapped[int] = mapped_column(Integer, default=3, server_default="3")
    x_kind: Mapped[str] = mapped_column(String(8))
    o_kind: Mapped[str] = mapped_column(String(8))
    x_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    o_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    # The challenger, and whom they invited (by id from a reply, or by @username).
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    invited_player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL")
    )
    invited_username: Mapped[str | None] = mapped_column(String(64))
    # The language the board message is written in (the creator's).
    language: Mapped[str | None] = mapped_column(String(16))
    rematch_of_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    # A game of a match of several games (`bot.games.matches.rules`), and which of them (1-based).
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    match_game: Mapped[int | None] = mapped_column(Integer)
    # a GameStatus
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.ACTIVE.value)
    # X | O | draw, once finished
    result: Mapped[str | None] = mapped_column(String(8))
    # an EndReason, once the game is over
    end_reason: Mapped[str | None] = mapped_column(String(16))
    # What a rated game did to its players' ratings (None: not rated, or not yet).
    x_rating_change: Mapped[int | None] = mapped_column(Integer)
    o_rating_change: Mapped[int | None] = mapped_column(Integer)
    # When the player to move got the turn, and how often they were nudged since.
    turn_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    nudges: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # A game between strangers on the clock (`bot.games.play.clock_rules`): the time control,
    # each side's seconds left as of the turn's start, and when the side to move flags.
    clock_seconds: Mapped[float | None] = mapped_column(Float)
    clock_delay: Mapped[float | None] = mapped_column(Float)
    x_clock: Mapped[float | None] = mapped_column(Float)
    o_clock: Mapped[float | None] = mapped_column(Float)
    flag_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    # The version its boards show (`bot.chores.board_catch_up`): behind `version` until drawn.
    shown_version: Mapped[int] = mapped_column(Integer, server_default="0")
    # The seats (bit i: `marks[i]`) told once that words do not reach a stranger
    # (`StrangerChats.first_chatter`, whichever instance hears them).
    room_told: Mapped[int] = mapped_column(Integer, server_default="0")
    # Resign's question, a draw's offer, while open: whose, at which move (`play.*_rules`).
    resign_asked_by: Mapped[int | None] = mapped_column(BigInteger)
    resign_asked_ply: Mapped[int | None] = mapped_column(Integer)
    draw_offered_by: Mapped[int | None] = mapped_column(BigInteger)
    draw_offer_ply: Mapped[int | None] = mapped_column(Integer)
    # When a clock was last redrawn (`TurnTimeouts.claim_clock_redraws`: once a period in all).
    clock_drawn_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The process drawing the boards now, until when (`bot.games.db.outbox`): one at a time.
    drawer: Mapped[str | None] = mapped_column(String(32))
    drawer_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )

    x_player: Mapped[Player | None] = relationship(foreign_keys=[x_player_id], lazy="joined")
    o_player: Mapped[Player | None] = relationship(foreign_keys=[o_player_id], lazy="joined")
    invited_player: Mapped[Player | None] = relationship(
        foreign_keys=[invited_player_id], lazy="joined"
    )

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012


class Match(Base):
    """A match of several games between two people (`bot.games.matches.rules`): side A plays
    ❌ in its odd games. The score is in half points (a draw is ½ each); it counts the games
    that ended, and the next game is started in the ending's transaction (`match_play`)."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    best_of: Mapped[int] = mapped_column(Integer)
    # None until known (a challenge nobody joined yet), or after /forget.
    a_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    b_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    a_halves: Mapped[int] = mapped_column(Integer, server_default="0")
    b_halves: Mapped[int] = mapped_column(Integer, server_default="0")
    played: Mapped[int] = mapped_column(Integer, server_default="0")
    # a MatchStatus
    status: Mapped[str] = mapped_column(String(16), default=MatchStatus.PLAYING.value)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Move(Base):
    """One ply of a game, for history, stats and review."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    cell: Mapped[int] = mapped_column(Integer)
    mark: Mapped[str] = mapped_column(String(1))
    # None when the AI made the move.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HandledUpdate(Base):
    """A Telegram update an instance has acted on, or, under a negative id, a button that made
    something (`bot.games.db.rows.handled_updates`); kept for a day, so that neither acts twice."""

    __tablename__ = "handled_updates"

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    handled_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class InboxUpdate(Base):
    """An update Telegram POSTed to the webhook, stored before the answer and deleted once
    handled: one a crash left here is handled by any instance (`bot.intake.webhook_inbox`)."""

    __tablename__ = "inbox_updates"

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    body: Mapped[str] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    # Times an instance took it up again after a crash; given up after a few.
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")


class Heartbeat(Base):
    """The one row /healthz writes (`bot.games.db.health`): a database that takes this write
    takes the bot's."""

    __tablename__ = "health"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Rating(Base):
    """A player's Glicko-2 rating in one pool: a board class (`3x3`, `big`, `ultimate`), or
    the same against the AI (`ai:3x3` …)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_pool_rating", "pool", "rating"),)

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    pool: Mapped[str] = mapped_column(String(16), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, server_default="0")
    # The change the last rated game made, shown by /rating.
    last_change: Mapped[int] = mapped_column(Integer, server_default="0")
    # The strongest rating the player has won or drawn against here: a provisional rating
    # stays within reach of it (`rating_rules.bounded`). None until a first win or draw.
    strongest_scored: Mapped[float | None] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class QueueEntry(Base):
    """A player looking for an opponent on `board` (`3x3`, `6x6k5`, `ultimate`), shared by
    every instance: pairing deletes both entries in the game's own transaction."""

    __tablename__ = "match_queue"
    __table_args__ = (Index("ix_match_queue_board_joined", "board", "joined_at"),)

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    board: Mapped[str] = mapped_column(String(16))
    # The time control sought (`clock_rules.clock_key`); NULL: the bot's default, so that a
    # host who changes the default pairs everyone waiting for it alike.
    clock: Mapped[str | None] = mapped_column(String(16))
    # A match of so many games sought (`bot.games.matches.rules`); 1: a single game.
    best_of: Mapped[int] = mapped_column(Integer, server_default="1")
    # The player's rating in the board's pool when they joined.
    rating: Mapped[float] = mapped_column(Float)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    # The "Looking for an opponent…" message, once posted.
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    language: Mapped[str | None] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # When the waiting message was last redrawn (its seconds count up).
    shown_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The AI was offered (no one came in time).
    offered_ai: Mapped[bool] = mapped_column(Boolean, server_default=false())


class PairingBlock(Base):
    """`player_id` asked never to be paired with `blocked_id` again (either way round)."""

    __tablename__ = "pairing_blocks"

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class FloodBucket(Base):
    """One of Telegram's flood limits counted for every instance together
    (`bot.flood_budget`): a chat's (`chat:<id>`) or the whole bot's (`bot`). Times are
    the database's clock, in seconds since 1970."""

    __tablename__ = "flood_budget"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    refilled_at: Mapped[float] = mapped_column(Float)
    # The limit's rate (tokens a second) and burst, as the last instance to take one knew them.
    rate: Mapped[float] = mapped_column(Float)
    capacity: Mapped[float] = mapped_column(Float)


class Tournament(Base):
    """A tournament in a group chat (`bot.games.tournaments`): its one message (sign-up, then
    standings, edited in place), its board (a `pairing.board_key`) and format, and the round
    being played. Its players and pairings are rows of their own."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_status", "status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, index=True)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    organiser_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    board: Mapped[str] = mapped_column(String(16))
    # a `tournament_rules.Format`; NULL: chosen by the number of players at Start
    format: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))  # a `tournament_rules.TournamentStatus`
    # The round being played (0 before the start), of `rounds`.
    round: Mapped[int] = mapped_column(Integer, server_default="0")
    rounds: Mapped[int] = mapped_column(Integer, server_default="0")
    # The language of its message (the organiser's).
    language: Mapped[str | None] = mapped_column(String(16))
    # Its games' time control (`clock_rules.clock_key`); NULL: from before they had one.
    clock: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TournamentPlayer(Base):
    """A player of a tournament: `seed` is the order they joined in; one who left is
    `withdrawn` (what is left of their games is forfeited)."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    # Not a key of `players`: a player who uses /forget stays in the tournament's shape as a
    # stand-in (`tournament_rows.forget`), without their id or name.
    player_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    seed: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(128))
    withdrawn: Mapped[bool] = mapped_column(Boolean, server_default=false())
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TournamentPairing(Base):
    """Who plays whom in a round of a tournament, and the game they play (`game_id`; NULL
    for a bye or a forfeit). `result` (a `tournament_rules.PairResult`) is NULL while the
    game is played, and copied from the game once it ended."""

    __tablename__ = "tournament_pairings"
    __table_args__ = (
        Index("ix_tournament_pairings_round", "tournament_id", "round"),
        UniqueConstraint("game_id", name="uq_tournament_pairings_game_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    x_player_id: Mapped[int] = mapped_column(BigInteger)
    o_player_id: Mapped[int | None] = mapped_column(BigInteger)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    result: Mapped[str | None] = mapped_column(String(8))
