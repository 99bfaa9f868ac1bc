"""Matchmaking and ratings: strangers paired through a queue, one game on two boards, Glicko-2
ratings per board class.

- `games.second_chat_id`, `second_message_id`, `second_language`: a game between strangers
  is shown in both players' private chats; the first board is ❌'s (`chat_id`, `message_id`),
  the second ⭕'s, written in ⭕'s language.
- `games.x_rating_change`, `o_rating_change`: what a rated game did to its players' ratings
  (None: not rated, or not yet); the final board shows it.
- `ratings`: a player's rating, deviation and volatility per pool (a board class, and the
  same classes against the AI).
- `match_queue`: who is looking for an opponent, on which board, since when; shared by every
  instance.
- `pairing_blocks`: "don't pair me with them again".
- `players.on_ladder`: shown on the global ladder (opt-in).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("second_chat_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("second_message_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("second_language", sa.String(16), nullable=True))
        batch.add_column(sa.Column("x_rating_change", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("o_rating_change", sa.Integer(), nullable=True))
    op.create_index("ix_games_second_chat_status", "games", ["second_chat_id", "status"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("on_ladder", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "ratings",
        sa.Column(
            "player_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("pool", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_change", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "pool"),
    )
    op.create_index("ix_ratings_pool_rating", "ratings", ["pool", "rating"])
    op.create_table(
        "match_queue",
        sa.Column(
            "player_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            autoincrement=False,
            nullable=False,
        ),
        sa.Column("board", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("shown_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("offered_ai", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.PrimaryKeyConstraint("player_id"),
    )
    op.create_index("ix_match_queue_board_joined", "match_queue", ["board", "joined_at"])
    op.create_table(
        "pairing_blocks",
        sa.Column(
            "player_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "blocked_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "blocked_id"),
    )


def downgrade() -> None:
    op.drop_table("pairing_blocks")
    op.drop_index("ix_match_queue_board_joined", table_name="match_queue")
    op.drop_table("match_queue")
    op.drop_index("ix_ratings_pool_rating", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("on_ladder")
    op.drop_index("ix_games_second_chat_status", table_name="games")
    with op.batch_alter_table("games") as batch:
        for column in (
            "o_rating_change",
            "x_rating_change",
            "second_language",
            "second_message_id",
            "second_chat_id",
        ):
            batch.drop_column(column)
