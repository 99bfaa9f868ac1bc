"""A tournament's standings in words (pure): a line a player, their points and tie-break in
one club's format (whole numbers and quarters: 2½, 1¾, ½), the points with their unit in the
language's own words and number ("1 pt", "2½ pts"), a shared place as shared ("2–3"); and who
has the round's bye."""

from __future__ import annotations

from bot.games.tournaments.rules import TournamentView, places
from bot.locales.texts import Texts, isolate

#: A quarter's glyph: points come in halves (a draw), Sonneborn–Berger in quarters (half of
#: a drawn opponent's half point).
QUARTERS = ("", "¼", "½", "¾")


def club_number(value: float) -> str:
    """3, 2½, ½, 1¾, 0: a score as a club prints it, whole and in quarters (a value between
    quarters, which points and Sonneborn–Berger never make, is shown at the nearest)."""
    whole, quarter = divmod(round(value * 4), 4)
    if whole == 0 and quarter:
        return QUARTERS[quarter]
    return f"{whole}{QUARTERS[quarter]}"


def points_text(points: float, tr: Texts) -> str:
    """0 pts, 1 pt, 2½ pts: a whole number by the language's plural rule (`COUNT_POINTS`),
    one with a half by a message of its own (`POINTS_FRACTION`): gettext's plural rules are
    for whole numbers, and a fraction's form is not always one of theirs (Ukrainian: 2,5
    очка, where 2 is очки and 5 очок)."""
    if float(points).is_integer():
        return tr.count("COUNT_POINTS", int(points))
    return tr.POINTS_FRACTION.format(count=club_number(points))


def bye_lines(view: TournamentView, tr: Texts) -> list[str]:
    """Who has the round's bye, by name (the table counts its point)."""
    return [
        tr.TOURNAMENT_BYE.format(name=isolate(view.name_of(pairing.x), tr))
        for pairing in view.current
        if pairing.is_bye
    ]


def round_of(view: TournamentView, game_id: int) -> int:
    """The round a game of the tournament was paired in (the round being played, for a game
    the pairings do not name)."""
    pairing = next((p for p in view.pairings if p.game_id == game_id), None)
    return pairing.round if pairing is not None else view.round


def place_text(first: int, last: int) -> str:
    """3, or 2–3 for a place shared."""
    return str(first) if first == last else f"{first}–{last}"


def table_lines(view: TournamentView, tr: Texts) -> list[str]:
    """The table, a line a player in its order, a shared place shown as shared ("2–3" on
    each of its lines); a player who left says so."""
    withdrawn = view.withdrawn
    table = view.table
    lines = []
    for (first, last), standing in zip(places(table), table, strict=True):
        line = tr.TOURNAMENT_LINE.format(
            place=place_text(first, last),
            name=isolate(view.name_of(standing.player), tr),
            points=points_text(standing.points, tr),
            tiebreak=club_number(standing.tiebreak),
        )
        lines.append(line + (" " + tr.TOURNAMENT_WITHDRAWN if standing.player in withdrawn else ""))
    return lines
