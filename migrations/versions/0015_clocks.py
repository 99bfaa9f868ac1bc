"""Clocks and ratings that mean something: the strongest rating each rating has won or drawn
against (a provisional rating stays within reach of it, `rating_rules.bounded`).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ratings") as table:
        table.add_column(sa.Column("strongest_scored", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ratings") as table:
        table.drop_column("strongest_scored")
