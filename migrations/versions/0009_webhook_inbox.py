"""The webhook inbox: every update Telegram POSTs is stored before it is answered 200.

Telegram does not send an update again once it was answered; the bot used to answer before
acting, so a crash in between lost it. Now the answer waits for this row, the row goes once
the update is handled, and any instance handles the rows a crash left
(`bot.intake.webhook_inbox`).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inbox_updates",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("update_id"),
    )
    op.create_index("ix_inbox_updates_received_at", "inbox_updates", ["received_at"])


def downgrade() -> None:
    op.drop_index("ix_inbox_updates_received_at", table_name="inbox_updates")
    op.drop_table("inbox_updates")
