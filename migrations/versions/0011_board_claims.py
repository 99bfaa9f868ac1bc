"""Board claims: one instance at a time draws a game's boards.

Two instances that each edit a board in the order they were asked could still land an older
edit after a newer one (each paces its own calls). `games.drawer` names the process drawing
the game's boards now, until `drawer_until` (a lease, so a process that died holds nothing for
long); the others leave the board to it, and it draws the newest version before it lets go
(`bot.games.db.outbox`).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("drawer", sa.String(32), nullable=True))
        batch.add_column(sa.Column("drawer_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("drawer_until")
        batch.drop_column("drawer")
