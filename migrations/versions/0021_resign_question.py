"""Resign's question is stored on its game, so that every drawing of the board (a clock's
redraw, the catch-up, another instance's) asks it until it is answered or a move is made,
where a redraw put plain 🏳 Resign back under the player being asked.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.add_column(sa.Column("resign_asked_by", sa.BigInteger(), nullable=True))
        table.add_column(sa.Column("resign_asked_ply", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.drop_column("resign_asked_ply")
        table.drop_column("resign_asked_by")
