"""The flood budget: Telegram's flood limits counted in the database, for every instance.

- `flood_budget`: a token bucket per chat messaged (`chat:<id>`) and one for the whole bot
  (`bot`): its tokens, when it was last refilled (the database's clock, seconds since 1970),
  and the rate and burst it refills at (`bot.flood_budget`).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "flood_budget",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("refilled_at", sa.Float(), nullable=False),
        sa.Column("rate", sa.Float(), nullable=False),
        sa.Column("capacity", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )


def downgrade() -> None:
    op.drop_table("flood_budget")
