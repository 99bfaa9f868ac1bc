"""Matches of several games (issue 40): the `matches` table, each game's match and number
in it (unique together: a match's next game is started once, whichever instance ends the one
before), and the match length a player in the queue looks for (`/play bo3`).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("best_of", sa.Integer(), nullable=False),
        sa.Column(
            "a_player_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column(
            "b_player_id",
            sa.BigInteger(),
            sa.ForeignKey("players.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("a_halves", sa.Integer(), server_default="0", nullable=False),
        sa.Column("b_halves", sa.Integer(), server_default="0", nullable=False),
        sa.Column("played", sa.Integer(), server_default="0", nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("match_queue") as table:
        table.add_column(sa.Column("best_of", sa.Integer(), server_default="1", nullable=False))
    with op.batch_alter_table("games") as table:
        table.add_column(sa.Column("match_id", sa.Integer(), nullable=True))
        table.add_column(sa.Column("match_game", sa.Integer(), nullable=True))
        table.create_foreign_key(
            "fk_games_match_id_matches", "matches", ["match_id"], ["id"], ondelete="SET NULL"
        )
        table.create_unique_constraint("uq_games_match_game", ["match_id", "match_game"])


def downgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.drop_constraint("uq_games_match_game", type_="unique")
        table.drop_constraint("fk_games_match_id_matches", type_="foreignkey")
        table.drop_column("match_game")
        table.drop_column("match_id")
    with op.batch_alter_table("match_queue") as table:
        table.drop_column("best_of")
    op.drop_table("matches")
