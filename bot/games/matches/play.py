"""Matches of several games in the database: a match begun with its first game, and a match
carried on from the ending of each of its games.

A match game ends like any game, through `store.save`, which settles the ending
(`endings.settle`) and then calls `advance` in the same transaction: the match's score is
written, and if the match goes on its next game is inserted, sides swapped, where the game
before was (the group, or both strangers' private chats, with the same clock). So a crash
cannot lose the next game, and of two instances ending the same game one wins the game's
version race; the unique (match_id, match_game) makes sure the next game is made once
whatever happens. The store tells its ending listeners after the commit, and the one that
shows matches (`bot.chores.match_games`) posts the next game's board; a posting a crash lost
is the board catch-up's (a game never posted).

A game played out (a line, a full board), resigned or lost on time counts and the match goes
on. Any other ending stops the match where it stands (`MatchStatus.ABANDONED`): /stop, a
block, a new game over it or /forget count the game as lost and end the match; a challenge
declined, cancelled or lapsed, or a game aborted, ends it with no result.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from bot.games.db.models import utcnow
from bot.games.db.rows import matches as match_rows
from bot.games.db.writes import CoreTransaction
from bot.games.matches.rules import MatchScore, Side, mark_of
from bot.games.model import USER, EndReason, GameView, PlayerInfo
from bot.games.play import lifecycle
from bot.games.play.clock_rules import Clock, with_clock

#: Endings after which the match goes on: the game was played to its end.
PLAYED_OUT = frozenset(
    {EndReason.LINE, EndReason.FULL, EndReason.AGREED, EndReason.RESIGNED, EndReason.TIMEOUT}
)


async def begin(session: CoreTransaction, best_of: int, draft: GameView) -> GameView:
    """The first game of a new match of `best_of` games (`draft`, not stored yet): the match
    stored, the draft as its game 1. `best_of` 1 is no match: the draft as it is."""
    if best_of <= 1:
        return draft
    now = utcnow()
    match_id = await match_rows.insert(session, best_of, draft.x_player_id, draft.o_player_id, now)
    return replace(draft, match_id=match_id, match_game=1, match=MatchScore(best_of))


async def advance(session: CoreTransaction, ended: GameView) -> tuple[GameView, GameView | None]:
    """A match game that has just ended (settled): the game with its match's new score, and
    the match's next game to insert (None: the match is over, or it is no match game)."""
    score, number = ended.match, ended.match_game
    if ended.match_id is None or score is None or score.is_over or number != score.next_game:
        return ended, None
    after = scored(score, ended)
    sides = (
        ended.player_id_of(mark_of(Side.A, number)),
        ended.player_id_of(mark_of(Side.B, number)),
    )
    match_rows.score_later(session, ended.match_id, score, after, sides, utcnow())
    ended = replace(ended, match=after)
    return ended, (None if after.is_over else next_game(ended, utcnow()))


def scored(score: MatchScore, ended: GameView) -> MatchScore:
    """The match's score after its game `ended`."""
    if ended.result is not None:
        score = score.record(ended.result.winner)
    goes_on = ended.end_reason in PLAYED_OUT and None not in (ended.x_player_id, ended.o_player_id)
    return score if score.is_over or goes_on else score.abandoned()


def next_game(ended: GameView, now: datetime) -> GameView:
    """The match's next game (not stored yet): the same two people, sides swapped, on the same
    board, where the game before was; between strangers each keeps their own chat and the
    clock is the same."""
    assert ended.x_player_id is not None and ended.o_player_id is not None
    draft = lifecycle.new_game(
        board=ended.board.shape.empty_board(),
        x_kind=USER,
        o_kind=USER,
        x_player=PlayerInfo(ended.o_player_id, ended.o_name or ""),
        o_player=PlayerInfo(ended.x_player_id, ended.x_name or ""),
        creator=None,
        chat_id=ended.chat_id,
        now=now,
    )
    draft = replace(
        draft,
        language=ended.language,
        match_id=ended.match_id,
        match_game=(ended.match_game or 0) + 1,
        match=ended.match,
    )
    if not ended.is_between_strangers:
        return draft
    draft = replace(
        draft,
        chat_id=ended.second_chat_id,
        language=ended.second_language,
        second_chat_id=ended.chat_id,
        second_language=ended.language,
    )
    if ended.clock_seconds is None:
        return draft
    return with_clock(draft, Clock(ended.clock_seconds, ended.clock_delay or 0.0))


async def next_game_id(session: Any, ended: GameView) -> int | None:
    """The id of the game that followed `ended` in its match, if one did."""
    if ended.match_id is None or ended.match_game is None:
        return None
    return await match_rows.next_game_id(session, ended.match_id, ended.match_game + 1)
