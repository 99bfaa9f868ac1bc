"""The waiting message of a search a player's block of the bot ended: their queue entry goes
with the block, and the message cannot be edited then, so its id is kept on the player until
they are back and it says the search ended.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as table:
        table.add_column(sa.Column("away_search_message_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as table:
        table.drop_column("away_search_message_id")
