"""Game links: every game gets a random public id, the name the bot's links ("Open board",
`startapp`) and the Mini App's API use for it instead of the sequential row id, so one link
tells nothing of any other game.

- `games.public_id`: 16 characters of `A-Z a-z 0-9 _ -` (`secrets.token_urlsafe(12)`, as
  `bot.games.public_ids.new_public_id` makes them), unique. Existing games get one here.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

#: As `bot.games.public_ids.PUBLIC_ID_BYTES` (written out: a migration keeps what it did).
PUBLIC_ID_BYTES = 12
#: Games given their public id per statement.
BATCH = 1000


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("public_id", sa.String(32), nullable=True))
    games = sa.table("games", sa.column("id", sa.Integer()), sa.column("public_id", sa.String()))
    connection = op.get_bind()
    ids = [row.id for row in connection.execute(sa.select(games.c.id).order_by(games.c.id))]
    fill = (
        games.update()
        .where(games.c.id == sa.bindparam("game_id"))
        .values(public_id=sa.bindparam("token"))
    )
    for start in range(0, len(ids), BATCH):
        tokens = [
            {"game_id": game_id, "token": secrets.token_urlsafe(PUBLIC_ID_BYTES)}
            for game_id in ids[start : start + BATCH]
        ]
        connection.execute(fill, tokens)
    with op.batch_alter_table("games") as batch:
        batch.alter_column("public_id", existing_type=sa.String(32), nullable=False)
        batch.create_unique_constraint("uq_games_public_id", ["public_id"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("uq_games_public_id", type_="unique")
        batch.drop_column("public_id")
