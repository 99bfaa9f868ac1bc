"""Tournaments in a group (`/tournament`): the tournament (its chat, its one message, its
board, format, status and round), its players (seed, withdrawn), and its pairings round by
round, each with the game played for it (`games.id`) and its result once decided.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "organiser_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("board", sa.String(16), nullable=False),
        sa.Column("format", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("rounds", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_tournaments_chat_id", "tournaments", ["chat_id"])
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id",
            sa.Integer(),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    )
    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "tournament_id",
            sa.Integer(),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("x_player_id", sa.BigInteger(), nullable=False),
        sa.Column("o_player_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("result", sa.String(8), nullable=True),
        sa.UniqueConstraint("game_id", name="uq_tournament_pairings_game_id"),
    )
    op.create_index(
        "ix_tournament_pairings_round", "tournament_pairings", ["tournament_id", "round"]
    )


def downgrade() -> None:
    op.drop_index("ix_tournament_pairings_round", table_name="tournament_pairings")
    op.drop_table("tournament_pairings")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_index("ix_tournaments_chat_id", table_name="tournaments")
    op.drop_table("tournaments")
