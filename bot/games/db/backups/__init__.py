"""Backups of the bot's database, taken while the bot runs, and restoring one.

copies     SQLite: a consistent copy through SQLite's online backup API, and its checks
restores   SQLite: a checked copy put in the place of the bot's file, the bot stopped
postgres   PostgreSQL: the pg_dump and pg_restore lines to use, the password never shown
commands   which of these DATABASE_URL asks for, as the command line says it
"""
