"""The time control a player in the queue looks for (`/play 3+2`; NULL is the bot's default),
the seats of a game between strangers told that typed words do not reach the opponent, and when
a running clock was last redrawn (by one instance a period).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match_queue") as table:
        table.add_column(sa.Column("clock", sa.String(16), nullable=True))
    with op.batch_alter_table("games") as table:
        table.add_column(sa.Column("room_told", sa.Integer(), server_default="0", nullable=False))
        table.add_column(sa.Column("clock_drawn_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.drop_column("clock_drawn_at")
        table.drop_column("room_told")
    with op.batch_alter_table("match_queue") as table:
        table.drop_column("clock")
