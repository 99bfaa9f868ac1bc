"""Handled updates: the ids of the Telegram updates already acted on, kept for a day.

Telegram delivers an update at least once (a webhook delivery that timed out comes again, maybe
to another instance); each instance records the update id here before acting on it, so a
repeated delivery is skipped.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "handled_updates",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("handled_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("update_id"),
    )
    op.create_index("ix_handled_updates_handled_at", "handled_updates", ["handled_at"])


def downgrade() -> None:
    op.drop_index("ix_handled_updates_handled_at", table_name="handled_updates")
    op.drop_table("handled_updates")
