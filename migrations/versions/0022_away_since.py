"""When a player blocked the bot: once they are back, only the boards of the games that block
closed are drawn again, once, where every return drew every game ever closed by a block again
(Telegram refused each as "message is not modified").

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as table:
        table.add_column(sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as table:
        table.drop_column("away_since")
