"""Bigger boards: each game's size and the line length k needed to win.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every game stored so far is the classic 3×3 with three in a row.
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("size", sa.Integer(), nullable=False, server_default="3"))
        batch.add_column(sa.Column("k", sa.Integer(), nullable=False, server_default="3"))


def downgrade() -> None:
    # Games on bigger boards cannot be represented by the older schema.
    op.execute("DELETE FROM moves WHERE game_id IN (SELECT id FROM games WHERE size <> 3)")
    op.execute("DELETE FROM games WHERE size <> 3")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("k")
        batch.drop_column("size")
