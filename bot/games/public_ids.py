"""Games' public ids: the names links and the Mini App's API use for a game instead of its
sequential row id, so one game's link says nothing of any other's."""

from __future__ import annotations

import re
import secrets

#: A game's public id (`GameView.public_id`): the name links and the Mini App's API use for
#: it instead of the sequential row id, so one game's link says nothing of any other's. 12
#: random bytes, 16 characters of `A-Z a-z 0-9 _ -` (Telegram's `startapp` takes those, up to
#: 64).
PUBLIC_ID_BYTES = 12
PUBLIC_ID_RE = re.compile(r"[A-Za-z0-9_-]{16}")


def new_public_id() -> str:
    """A fresh, unguessable public id for a new game."""
    return secrets.token_urlsafe(PUBLIC_ID_BYTES)


def is_public_id(text: str | None) -> bool:
    """Whether `text` has a public id's shape (checked before any database sees it)."""
    return text is not None and PUBLIC_ID_RE.fullmatch(text) is not None
