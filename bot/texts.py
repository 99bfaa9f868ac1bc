"""Every user-facing string of the bot (English)."""

from __future__ import annotations

X_SYMBOL = "❌"
O_SYMBOL = "⭕"
EMPTY_SYMBOL = "·"
# The winning line is shown with these instead of the plain marks.
X_WIN_SYMBOL = "❎"
O_WIN_SYMBOL = "🅾️"

LEVEL_NAMES = {"easy": "Easy", "medium": "Medium", "hard": "Hard"}

WELCOME = (
    f"Welcome to Tic-Tac-Toe! {X_SYMBOL} {O_SYMBOL}\n\n"
    f"Pick a game below. In the first row you play {X_SYMBOL} and move first; "
    f"in the second row you play {O_SYMBOL} and the AI starts. "
    "Tap a cell to move, or type its coordinates like 2 3."
)

HELP = (
    "How to play\n"
    "• Tap a free cell of the board to put your mark there, or type a move: 2 3 (row, column, "
    "1–3) or a cell number 1–9 (left to right, top to bottom).\n"
    "• Three in a row — across, down or diagonally — wins.\n"
    "• /start opens the menu; /start hard plays the Hard AI at once; /start hard user lets the "
    "AI go first; /start user user is two players on one phone; /start easy hard lets two AIs "
    "play while you watch.\n"
    "• /stop ends the current game (it counts as resigning), /stats shows your record.\n"
    "Levels: Easy plays at random, Medium takes wins and blocks yours, Hard never loses."
)

BAD_PARAMETERS = (
    "Bad parameters!\n"
    "Usage: /start [X] [O] with user, easy, medium or hard — e.g. /start hard or /start hard user"
)

MENU_PLAY_X = X_SYMBOL + " {level}"
MENU_PLAY_O = O_SYMBOL + " {level}"
MENU_TWO_PLAYERS = "👥 Two players"
MENU_AI_MATCH = "🤖 AI vs AI"
MENU_HELP = "❓ Help"

BUTTON_RESIGN = "🏳 Resign"
BUTTON_PLAY_AGAIN = "🔁 Play again"
BUTTON_SWAP_SIDES = "🔄 Swap sides"
BUTTON_OTHER_LEVEL = "🎚 Another level"
BUTTON_WATCH_AGAIN = "🔁 Watch again"

AI_NAME = "{level} AI"
TWO_PLAYERS_TITLE = "👥 Two players, one phone"
VERSUS = "{x} {x_name} vs {o} {o_name}"

YOUR_MOVE = "Your move {mark}: tap a free cell."
MARK_TO_MOVE = "{mark} to move: tap a free cell."
AI_THINKING = "{name} {mark} is thinking…"

RESULT_YOU_WON = "You won! 🎉 Nicely played."
RESULT_YOU_LOST = "The AI won this time. Play again?"
RESULT_DRAW = "Nobody loses 🤝"
RESULT_YOU_RESIGNED = "You resigned. 🏳"
RESULT_MARK_WON = "Congratulations, {mark}! 🎉"
RESULT_MARK_RESIGNED = "{mark} resigned. 🏳"
RESULT_AI_WON = "{name} wins the match! 🏆"
GAME_CLOSED = "This game was closed."

POPUP_GAME_OVER = "This game is over. Start a new one with /start."
POPUP_STALE = "This board is out of date: the game has moved on."
POPUP_OCCUPIED = "This cell is occupied! Choose another one!"
POPUP_NOT_YOUR_TURN = "It's not your turn."
POPUP_NOT_A_PLAYER = "This is not your game."
POPUP_NO_GAME = "This game doesn't exist any more."
POPUP_CONFLICT = "The board just changed. Have a look and tap again."
POPUP_UNKNOWN_BUTTON = "This button doesn't work any more. Send /start for a new game."
POPUP_ERROR = "Something went wrong. Please try again."

NO_GAME = "There is no game in progress. Send /start to play."
STOPPED = "Game over: you resigned. Send /start to play again."
STOPPED_AI_MATCH = "The AI match was stopped."
NOT_YOUR_TURN = "Wait for your turn."
SORRY_ERROR = "Sorry, something went wrong. Your game is safe; please try again."

STATS_EMPTY = "No finished games against the AI yet. Send /start to play one!"
STATS_HEADER = "Your record against the AI (wins / losses / draws):"
STATS_LINE = "{level}: {wins} / {losses} / {draws}"
STATS_TOTAL = "Total: {wins} / {losses} / {draws} in {played} games"

COMMANDS = (
    ("start", "New game: menu, or /start hard, /start hard user …"),
    ("stop", "End the current game"),
    ("stats", "Your wins, losses and draws"),
    ("help", "How to play"),
)
