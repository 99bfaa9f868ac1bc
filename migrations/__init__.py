"""Alembic environment and revisions: the only owner of the database schema."""
