"""A tournament's standings as its message says them (`bot.chat.tournament.render_tournament`,
`bot.views.standings`): pure rendering of a tournament as stored, in every language."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.chat.tournament import render_tournament
from bot.games.tournaments.rules import (
    Entrant,
    Format,
    Pairing,
    PairResult,
    TournamentStatus,
    TournamentView,
)
from bot.locales import en
from bot.locales.texts import texts_for
from bot.views.standings import club_number

NAMES = {1: "Ann", 2: "Ben", 3: "Cat", 4: "Dan", 5: "Eve"}
X, O, DRAW, BYE = PairResult.X, PairResult.O, PairResult.DRAW, PairResult.BYE
#: A five-player round robin after three rounds: Ben 3, Dan 2½, Ann 1½, Cat 1, Eve 1; their
#: Sonneborn–Berger 2, 2, ½, 1¾ and 1¼ (halves and quarters both).
THREE_ROUNDS = (
    Pairing(1, 1, None, BYE),
    Pairing(1, 2, 5, X),
    Pairing(1, 3, 4, DRAW),
    Pairing(2, 5, 1, DRAW),
    Pairing(2, 4, None, BYE),
    Pairing(2, 2, 3, X),
    Pairing(3, 1, 4, O),
    Pairing(3, 5, 3, DRAW),
    Pairing(3, 2, None, BYE),
)
#: A standings line: place, name, points, tie-break (Russian and Ukrainian say КБ for SB).
LINE = re.compile(r"^(\S+)\. (\w+) — (.+), (?:SB|КБ) (\S+)$")


def tournament(
    pairings: tuple[Pairing, ...] = THREE_ROUNDS,
    round_: int = 3,
    status: TournamentStatus = TournamentStatus.RUNNING,
) -> TournamentView:
    return TournamentView(
        id=7,
        chat_id=-100,
        message_id=1,
        organiser_id=1,
        board="3x3",
        format=Format.ROUND_ROBIN,
        status=status,
        round=round_,
        rounds=5,
        language="en",
        entrants=tuple(Entrant(pid, name, pid) for pid, name in NAMES.items()),
        pairings=pairings,
    )


def lines_of(view: TournamentView, language: str = "en") -> dict[str, tuple[str, str, str]]:
    """Each name on the message: its place, points and tie-break as written."""
    found = {}
    for line in render_tournament(view, texts_for(language)).text.splitlines():
        match = LINE.match(line)
        if match:
            place, name, points, tiebreak = match.groups()
            found[name] = (place, points, tiebreak)
    return found


def test_tie_breaks_are_written_in_one_format_halves_and_quarters_alike() -> None:
    tiebreaks = {name: tiebreak for name, (_, _, tiebreak) in lines_of(tournament()).items()}
    assert tiebreaks == {"Ben": "2", "Dan": "2", "Ann": "½", "Cat": "1¾", "Eve": "1¼"}


@pytest.mark.parametrize(
    ("language", "three", "two_and_a_half", "one"),
    [
        ("en", "3 pts", "2½ pts", "1 pt"),
        ("de", "3 Punkte", "2½ Punkte", "1 Punkt"),
        # A fraction takes the genitive singular in Russian (as 3 does) and in Ukrainian
        # (where neither 1, очко, nor 3, очки, does).
        ("ru", "3 очка", "2½ очка", "1 очко"),
        ("uk", "3 очки", "2½ очка", "1 очко"),
    ],
)
def test_points_are_one_pt_and_so_many_pts_as_each_language_counts(
    language: str, three: str, two_and_a_half: str, one: str
) -> None:
    points = {name: pts for name, (_, pts, _) in lines_of(tournament(), language).items()}
    assert (points["Ben"], points["Dan"], points["Cat"]) == (three, two_and_a_half, one)
    assert points["Ann"] == two_and_a_half.replace("2½", "1½")


def test_nobody_has_points_before_the_first_result() -> None:
    start = lines_of(tournament((), round_=1))
    assert {pts for _, pts, _ in start.values()} == {"0 pts"}


def test_players_level_on_points_and_tie_break_share_their_place() -> None:
    # Round 1: Ann's bye and Ben's win over Eve are a point each and beat nobody with points
    # (SB 0); Cat and Dan drew (½, SB ¼ each). On main: 1, 2, 3, 4, 5.
    round_one = (Pairing(1, 1, None, BYE), Pairing(1, 2, 5, X), Pairing(1, 3, 4, DRAW))
    shown = lines_of(tournament(round_one, round_=1))
    assert {name: place for name, (place, _, _) in shown.items()} == {
        "Ann": "1–2",
        "Ben": "1–2",
        "Cat": "3–4",
        "Dan": "3–4",
        "Eve": "5",
    }
    assert list(shown) == ["Ann", "Ben", "Cat", "Dan", "Eve"]  # listed by seed within


def test_the_rounds_bye_is_named_under_the_round() -> None:
    lines = render_tournament(tournament(), en).text.splitlines()
    at = lines.index("Round 3 of 5 · games left: 0")
    assert lines[at + 1] == en.TOURNAMENT_BYE.format(name="Ben") == "Bye this round: Ben"
    # Only the round being played: once over, the table has no round.
    over = tournament(status=TournamentStatus.FINISHED)
    assert not any(line.startswith("Bye") for line in render_tournament(over, en).text.splitlines())


def read_club_number(text: str) -> Fraction:
    """2¾ → 11/4: a number as `club_number` writes it, read back."""
    whole = text.rstrip("¼½¾")
    quarter = {"": 0, "¼": 1, "½": 2, "¾": 3}[text[len(whole) :]]
    return int(whole or 0) + Fraction(quarter, 4)


@given(st.integers(0, 4 * 40))
def test_a_club_number_is_whole_and_quarters_and_reads_back(quarters: int) -> None:
    written = club_number(quarters / 4)
    assert re.fullmatch(r"0|[1-9]\d*[¼½¾]?|[¼½¾]", written), written
    assert read_club_number(written) == Fraction(quarters, 4)
