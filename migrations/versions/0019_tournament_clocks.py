"""A tournament's time control (`/tournament 3+2`; the bot's stranger clock by default): every
game of its rounds is played on it. NULL: a tournament opened before clocks came to them,
whose games keep the friends' turn timeout.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as table:
        table.add_column(sa.Column("clock", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as table:
        table.drop_column("clock")
