"""Games with friends: challenges, inline messages, rematches, turn timeouts, languages.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("inline_message_id", sa.String(length=128), nullable=True))
        batch.add_column(sa.Column("created_by_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("invited_player_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("invited_username", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("rematch_of_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("nudges", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
        batch.create_unique_constraint("uq_games_inline_message_id", ["inline_message_id"])
        batch.create_unique_constraint("uq_games_rematch_of_id", ["rematch_of_id"])
        batch.create_foreign_key(
            "fk_games_created_by_id_players",
            "players",
            ["created_by_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch.create_foreign_key(
            "fk_games_invited_player_id_players",
            "players",
            ["invited_player_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch.create_foreign_key(
            "fk_games_rematch_of_id_games",
            "games",
            ["rematch_of_id"],
            ["id"],
            ondelete="SET NULL",
        )
    # Games that were running before this revision: their turn starts now.
    op.execute("UPDATE games SET turn_started_at = updated_at WHERE status = 'active'")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("fk_games_rematch_of_id_games", type_="foreignkey")
        batch.drop_constraint("fk_games_invited_player_id_players", type_="foreignkey")
        batch.drop_constraint("fk_games_created_by_id_players", type_="foreignkey")
        batch.drop_constraint("uq_games_rematch_of_id", type_="unique")
        batch.drop_constraint("uq_games_inline_message_id", type_="unique")
        for column in (
            "nudges",
            "turn_started_at",
            "rematch_of_id",
            "language",
            "invited_username",
            "invited_player_id",
            "created_by_id",
            "inline_message_id",
        ):
            batch.drop_column(column)
    # Games that only exist in the new model's terms end as closed games.
    op.execute(
        "UPDATE games SET status = 'abandoned', end_reason = 'abandoned' "
        "WHERE status IN ('open', 'cancelled', 'declined')"
    )
