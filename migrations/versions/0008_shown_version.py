"""The board outbox: which version of its game each board message shows.

A move is committed first and shown after (its edit waits for the chat's pace), so a crash in
between left a board showing an older position than its game, for good. `shown_version` is
what the board shows; a game whose `version` is ahead of it is a board still to draw, and any
instance draws it (`bot.chores.board_catch_up`). The partial index holds just those games.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

BEHIND = sa.text("shown_version < version")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("shown_version", sa.Integer(), nullable=False, server_default="0")
        )
    # Boards stored so far are taken to show their game: nothing to redraw at the upgrade.
    op.execute("UPDATE games SET shown_version = version")
    op.create_index(
        "ix_games_behind",
        "games",
        ["id"],
        sqlite_where=BEHIND,
        postgresql_where=BEHIND,
    )


def downgrade() -> None:
    op.drop_index("ix_games_behind", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("shown_version")
