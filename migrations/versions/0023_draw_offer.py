"""A draw's offer between two people is stored on its game, as Resign's question is (0021):
every drawing of the opponent's board offers Accept / Decline until they answer or a move is
made.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.add_column(sa.Column("draw_offered_by", sa.BigInteger(), nullable=True))
        table.add_column(sa.Column("draw_offer_ply", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as table:
        table.drop_column("draw_offer_ply")
        table.drop_column("draw_offered_by")
