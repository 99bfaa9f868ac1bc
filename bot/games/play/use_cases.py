"""Playing: starting a game alone (against the AI, an AI match, one phone, an inline board
against the AI), moves by tap or typed, resigning and `/stop`."""

from __future__ import annotations

import random

from bot.games.db import reads, store
from bot.games.db.batch import GuardFailed
from bot.games.db.live_games import Loaded
from bot.games.db.models import utcnow
from bot.games.db.rows import games as game_rows
from bot.games.db.rows import players as player_rows
from bot.games.db.store import LOST_RACE, Store
from bot.games.db.writes import CoreTransaction
from bot.games.model import (
    USER,
    BoardRef,
    Claim,
    GameView,
    MoveResult,
    MoveStatus,
    PlayerInfo,
    PlayerKind,
    StartResult,
    UpdateClaim,
)
from bot.games.play import lifecycle
from core.ai import LEVELS, Level
from core.board import Board, MoveError, NotNumbersError
from core.notation import plain_digits
from core.positions import parse_typed


def looks_like_move(text: str) -> bool:
    """Whether typed text is meant as a move (digits, whatever their script, and the
    separators of coordinates), not words."""
    words = plain_digits(text).strip()
    return bool(words) and all(c.isdigit() or c in " ,-rRcC" for c in words)


class Play:
    """Use-cases of one player's game; each is one transaction."""

    def __init__(self, games: Store, rng: random.Random) -> None:
        self._store = games
        self._rng = rng

    async def start_game(
        self,
        chat_id: int,
        user: PlayerInfo,
        x_kind: PlayerKind,
        o_kind: PlayerKind,
        *,
        replace_current: bool = True,
        board: Board | None = None,
        claim: UpdateClaim | None = None,
        resign_underway: bool = False,
    ) -> StartResult:
        """A game the sender starts alone: against an AI, an AI match, or two players on one
        phone. An AI that plays X moves at once, unless both sides are AIs (those advance
        through the AI-turns runner). With `claim`, the update is claimed with the game.
        `replace_current` closes the chat's live games, but one the sender moved in only with
        `resign_underway` (a loss): else nothing starts, and `underway` names that game."""
        x_kind, o_kind = PlayerKind(x_kind), PlayerKind(o_kind)  # ValueError for other words

        args = (chat_id, user, x_kind, o_kind, replace_current, board, claim, resign_underway)
        try:
            return await self._store.until_won(lambda: self._start(*args))
        except GuardFailed:
            return StartResult(None, claim=Claim(False))

    async def _start(
        self,
        chat_id: int,
        user: PlayerInfo,
        x_kind: PlayerKind,
        o_kind: PlayerKind,
        replace_current: bool,
        board: Board | None,
        claim: UpdateClaim | None,
        resign_underway: bool,
    ) -> StartResult:
        now = utcnow()

        def opening(player: PlayerInfo) -> lifecycle.Turn:
            draft = lifecycle.new_game(
                chat_id=chat_id,
                board=board or Board.empty(),
                x_kind=x_kind,
                o_kind=o_kind,
                x_player=player if x_kind == USER else None,
                o_player=player if o_kind == USER else None,
                creator=player,
                now=now,
            )
            turn = lifecycle.Turn(draft)
            if x_kind != USER and o_kind == USER:
                turn = lifecycle.ai_replies(turn, self._rng, now)
            return turn

        if replace_current:
            # Usually the chat's last game has ended: nothing to close, one round trip.
            player = player_rows.as_stored(user)
            turn = opening(player)
            fast = await self._store.start_in_idle_chat(player, turn.game, turn.moves, claim)
            if fast is not None:
                new, chosen_language = fast
                made = None if claim is None else Claim(True, chosen_language)
                return StartResult(new.view, claim=made)
        started: Loaded | None = None
        async with self._store.transaction() as session:
            player = await player_rows.upsert_player(session, user)
            live = await reads.live_games_in_chat(session, chat_id)
            closed, underway = (
                await close_chat_games(session, live, user.id, resign_underway)
                if replace_current
                else ((), None)
            )
            if underway is None:
                turn = opening(player)
                started = await store.insert(session, turn.game, turn.moves)
            # The last write (see `Store._act`); a claimed update undoes the others. Asked
            # first (`underway`), the update is handled all the same.
            claimed = None if claim is None else self._store.claim_later(session, claim, guard=True)
        return StartResult(
            None if started is None else started.view,
            closed,
            None if claimed is None else store.claim_made(claimed),
            underway=underway,
            going_on=tuple(g.view for g in live if is_with_people(g.view, user.id)),
        )

    async def start_inline_ai_game(
        self,
        inline_message_id: str,
        user: PlayerInfo,
        creator_id: int,
        level: Level,
        cell: int,
        board: Board | None = None,
    ) -> MoveResult:
        """The first tap on an inline "play the AI" board: creates the game and plays the cell."""
        board = board or Board.empty()
        # Checked before any game exists: a refused tap must not take the message over.
        if level not in LEVELS or not 0 <= cell < len(board.cells):
            return MoveResult(MoveStatus.INVALID)
        try:
            async with self._store.transaction() as session:
                existing = await reads.load_on_inline_message(session, inline_message_id)
                if existing is not None:
                    # The board was already replaced by the game's own buttons: an old tap.
                    return MoveResult(MoveStatus.STALE, existing.view)
                if user.id != creator_id:
                    return MoveResult(MoveStatus.NOT_A_PLAYER)
                player = await player_rows.upsert_player(session, user)
                now = utcnow()
                draft = lifecycle.new_game(
                    inline_message_id=inline_message_id,
                    board=board,
                    x_kind=USER,
                    o_kind=PlayerKind.of(Level(level)),
                    x_player=player,
                    creator=player,
                    now=now,
                )
                turn = lifecycle.human_move(draft, cell, user.id, self._rng, now)
                started = await store.insert(session, turn.game, turn.moves)
                return MoveResult(MoveStatus.PLAYED, started.view)
        except LOST_RACE:
            return await self._store.conflict_on_inline(inline_message_id)

    async def tap(
        self,
        game_id: int,
        ref: BoardRef,
        user: PlayerInfo,
        ply: int,
        cell: int,
        claim: UpdateClaim | None = None,
    ) -> MoveResult:
        """A tap on a board cell. `ply` is the move number the board showed when tapped; the
        tap's update is claimed in the same transaction if `claim` is given."""

        async def tap(session: CoreTransaction, game: Loaded) -> MoveResult:
            refusal = lifecycle.tap_refusal(game.view, user.id, ply, cell)
            if refusal is not None:
                return MoveResult(refusal, game.view)
            return await self._move(session, game, cell, user)

        return await self._store.on_game(game_id, ref, tap, claim)

    async def show_block(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, ply: int, block: int | None
    ) -> MoveResult:
        """Ultimate: the player to move asks to see small board `block` (None: the choice of
        small boards). Nothing is written; PLAYED when the board may show it."""
        game = await self._store.get_game(game_id)
        if game is None or not ref.matches(game):
            return MoveResult(MoveStatus.NO_GAME)
        refusal = lifecycle.block_refusal(game, user.id, ply, block)
        return MoveResult(refusal or MoveStatus.PLAYED, game)

    async def unfinished_with_people(self, chat_id: int, user_id: int) -> list[GameView]:
        """The user's running games against other people in this chat (newest first): a new
        game leaves them running, and the user is told so before starting one."""
        async with self._store.sessions() as session:
            found = await reads.live_games_in_chat(session, chat_id)
        return [game.view for game in found if is_with_people(game.view, user_id)]

    async def typed(
        self, chat_id: int, user: PlayerInfo, text: str, *, message_id: int | None = None
    ) -> MoveResult:
        """A typed move (`2 3` or `6`): in the game on `message_id` (a reply to a board in a
        group), else in the chat's current game. A malformed move answers INVALID with
        core's typed error."""
        try:
            async with self._store.transaction() as session:
                if message_id is not None:
                    found = await game_rows.on_message(session, chat_id, message_id)
                else:
                    found = await reads.live_games_in_chat(session, chat_id)
                if not found:
                    return MoveResult(MoveStatus.NO_GAME)
                game = found[0]
                if game.view.is_between_strangers and not looks_like_move(text):
                    return MoveResult(MoveStatus.INVALID, game.view, NotNumbersError())
                refusal = lifecycle.move_refusal(game.view, user.id)
                if refusal is not None:
                    return MoveResult(refusal, game.view)
                try:
                    cell = parse_typed(text, game.view.board, game.view.last_cell)
                except MoveError as error:
                    return MoveResult(MoveStatus.INVALID, game.view, error)
                return await self._move(session, game, cell, user)
        except LOST_RACE:
            return await self._store.conflict(None)

    async def stop_current(self, chat_id: int, user: PlayerInfo) -> MoveResult:
        """`/stop`: end the sender's newest game in this chat. A running game counts as
        resigned; a challenge is withdrawn; an AI match the sender started is stopped."""
        try:
            async with self._store.transaction() as session:
                for game in await reads.live_games_in_chat(session, chat_id):
                    stopped = lifecycle.stop(game.view, user.id)
                    if stopped is not None:
                        return MoveResult(
                            MoveStatus.PLAYED, await store.save(session, game, stopped)
                        )
                return MoveResult(MoveStatus.NO_GAME)
        except LOST_RACE:
            return await self._store.conflict(None)

    async def _move(
        self, session: CoreTransaction, game: Loaded, cell: int, user: PlayerInfo
    ) -> MoveResult:
        """Play an allowed move on a free cell, and the AI's instant replies."""
        turn = lifecycle.human_move(game.view, cell, user.id, self._rng, utcnow())
        after = await store.save(session, game, turn.game, turn.moves)
        return MoveResult(MoveStatus.PLAYED, after)


def is_with_people(game: GameView, user_id: int) -> bool:
    """A running game of the user's against other people: a new game leaves it running."""
    return (
        game.is_active
        and game.is_between_people
        and lifecycle.player_refusal(game, user_id) is None
    )


async def close_chat_games(
    session: CoreTransaction, live: list[Loaded], user_id: int, resign_underway: bool
) -> tuple[tuple[GameView, ...], GameView | None]:
    """Close a private chat's live games for the user's new one: the games closed, or, when
    one the user moved in would be resigned without `resign_underway`, none and that game."""
    mine = [game.view for game in live if not game.view.is_between_strangers]
    underway = next((game for game in mine if lifecycle.is_underway(game, user_id)), None)
    if underway is not None and not resign_underway:
        return (), underway
    closed = []
    for old in live:
        if not old.view.is_between_strangers:  # that one goes on, in the other player's chat
            closed.append(await store.save(session, old, lifecycle.replaced(old.view, user_id)))
    return tuple(closed), None
