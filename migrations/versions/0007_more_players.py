"""Games of three or four players: the third and fourth seats, how many seats a game has,
who is out of it, and whose turn it is (with more than two players the marks' counts do not
tell).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every game stored so far has two players.
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("seats", sa.Integer(), nullable=False, server_default="2"))
        batch.add_column(
            sa.Column(
                "t_player_id",
                sa.BigInteger(),
                sa.ForeignKey("players.id", name="fk_games_t_player_id", ondelete="SET NULL"),
                nullable=True,
            )
        )
        batch.add_column(
            sa.Column(
                "s_player_id",
                sa.BigInteger(),
                sa.ForeignKey("players.id", name="fk_games_s_player_id", ondelete="SET NULL"),
                nullable=True,
            )
        )
        batch.add_column(sa.Column("out", sa.String(length=4), nullable=False, server_default=""))
        batch.add_column(sa.Column("turn_mark", sa.String(length=1), nullable=True))


def downgrade() -> None:
    # Games of more than two players cannot be represented by the older schema.
    op.execute("DELETE FROM moves WHERE game_id IN (SELECT id FROM games WHERE seats > 2)")
    op.execute("DELETE FROM games WHERE seats > 2")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("turn_mark")
        batch.drop_column("out")
        batch.drop_column("s_player_id")
        batch.drop_column("t_player_id")
        batch.drop_column("seats")
