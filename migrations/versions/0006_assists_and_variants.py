"""Hints and undo, and ultimate tic-tac-toe: whether a game was played with help, which game
it is, the cell of its last move (ultimate sends the next player by it), and a board column
wide enough for ultimate's 81 cells.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every game stored so far is a plain one, played without a hint or an undo.
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("assisted", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("variant", sa.String(length=16), nullable=False, server_default="classic")
        )
        batch.add_column(sa.Column("last_cell", sa.Integer(), nullable=True))
        batch.alter_column("board", existing_type=sa.String(length=64), type_=sa.String(length=96))


def downgrade() -> None:
    # Ultimate games cannot be represented by the older schema.
    op.execute(
        "DELETE FROM moves WHERE game_id IN (SELECT id FROM games WHERE variant <> 'classic')"
    )
    op.execute("DELETE FROM games WHERE variant <> 'classic'")
    with op.batch_alter_table("games") as batch:
        batch.alter_column("board", existing_type=sa.String(length=96), type_=sa.String(length=64))
        batch.drop_column("last_cell")
        batch.drop_column("variant")
        batch.drop_column("assisted")
