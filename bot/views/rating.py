"""What users see of ratings, as pure functions: the change under a rated game, /rating, and
the global ladder of /top."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.games.model import USER, GameView
from bot.games.ratings.rules import AI_PREFIX, AI_RATINGS, POOLS
from bot.games.summaries import LadderRow, PoolRating
from bot.locales.texts import Texts, isolate
from core.board import O, X

PlayerName = Callable[[GameView, str, Texts], str]


def first_name(name: str) -> str:
    """The first word of a name: all a stranger sees of another."""
    words = name.split()
    return words[0] if words else name


def signed(change: int) -> str:
    """+12, −12 (a true minus sign), +0."""
    return f"−{-change}" if change < 0 else f"+{change}"


def rating_changes(game: GameView) -> dict[str, str]:
    """What a rated game did to its players' ratings, each person's change signed (+12, −12)
    by their mark; against the AI the person's alone; nothing for a game not rated."""
    if not game.is_rated:
        return {}
    changes = {X: game.x_rating_change or 0, O: game.o_rating_change or 0}
    if game.is_against_ai:
        person = X if game.x_kind == USER else O
        return {person: signed(changes[person])}
    return {mark: signed(change) for mark, change in changes.items()}


def rating_lines(game: GameView, tr: Texts, player_name: PlayerName) -> list[str]:
    """Under a rated game: what it did to its players' ratings."""
    changes = rating_changes(game)
    if not changes:
        return []
    if game.is_against_ai:
        return [tr.RATING_LINE_AI.format(change=next(iter(changes.values())))]
    shown = ", ".join(f"{player_name(game, mark, tr)} {c}" for mark, c in changes.items())
    return [tr.RATING_LINE.format(changes=shown)]


def pool_label(pool: str, tr: Texts) -> str:
    """`3×3`, `Big boards`, `Ultimate`, or one of them against the AI."""
    base = pool.removeprefix(AI_PREFIX)
    name = tr.POOL_NAMES["classic" if base == "3x3" else base]
    return tr.POOL_VS_AI.format(pool=name) if pool.startswith(AI_PREFIX) else name


def render_ratings(ratings: Sequence[PoolRating], tr: Texts) -> str:
    """The /rating reply: each pool the player is rated in, then the AI levels' ratings."""
    if not ratings:
        lines = [tr.RATING_EMPTY]
    else:
        order = [*POOLS, *(AI_PREFIX + pool for pool in POOLS)]
        lines = [tr.RATING_HEADER]
        for rating in sorted(ratings, key=lambda r: order.index(r.pool)):
            row = tr.RATING_PROVISIONAL if rating.is_provisional else tr.RATING_ROW
            lines.append(
                row.format(
                    pool=pool_label(rating.pool, tr),
                    rating=round(rating.rating),
                    deviation=round(rating.deviation),
                    games=tr.count("COUNT_GAMES", rating.games),
                    change=signed(rating.last_change),
                )
            )
    lines.append("")
    for pool in POOLS:
        levels = {level: round(value) for level, value in AI_RATINGS[pool].items()}
        lines.append(tr.RATING_AI_LEVELS.format(pool=pool_label(pool, tr), **levels))
    return "\n".join(lines)


def render_ladders(ladders: dict[str, list[LadderRow]], tr: Texts) -> str:
    """The global ladder of each pool that has anyone on it: rank, first name, rating."""
    parts = []
    for pool, rows in ladders.items():
        if not rows:
            continue
        lines = [tr.LADDER_HEADER.format(pool=pool_label(pool, tr))]
        lines.extend(
            tr.LADDER_LINE.format(
                rank=rank, name=isolate(first_name(row.name), tr), rating=round(row.rating)
            )
            for rank, row in enumerate(rows, start=1)
        )
        parts.append("\n".join(lines))
    return "\n\n".join(parts) or tr.LADDER_EMPTY
