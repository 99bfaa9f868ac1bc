"""Clocks and ratings that mean something: games between strangers on the clock (the time
control, each side's time left as of the turn's start, when the side to move flags), and the
strongest rating each rating has won or drawn against (`rating_rules.bounded`).

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
    with op.batch_alter_table("games") as table:
        for name in ("clock_seconds", "clock_delay", "x_clock", "o_clock"):
            table.add_column(sa.Column(name, sa.Float(), nullable=True))
        table.add_column(sa.Column("flag_at", sa.DateTime(timezone=True), nullable=True))
        table.create_index("ix_games_flag_at", ["flag_at"])


def downgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.drop_index("ix_games_flag_at")
        for name in ("flag_at", "o_clock", "x_clock", "clock_delay", "clock_seconds"):
            table.drop_column(name)
    with op.batch_alter_table("ratings") as table:
        table.drop_column("strongest_scored")
