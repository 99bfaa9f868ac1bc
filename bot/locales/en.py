"""English: every user-facing string of the bot. Other languages define the same names."""

from __future__ import annotations

# Language-neutral symbols (other locales inherit them).
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
WELCOME_GROUP = (
    f"Tic-Tac-Toe! {X_SYMBOL} {O_SYMBOL}\n\n"
    "Challenge someone here, play the AI in front of everyone, or watch two AIs play."
)

HELP = (
    "How to play\n"
    "• Tap a free cell of the board to put your mark there, or type a move: 2 3 (row, column, "
    "1–3) or a cell number 1–9 (left to right, top to bottom). In groups, reply to the board.\n"
    "• Three in a row — across, down or diagonally — wins.\n"
    "• /start opens the menu; /start hard plays the Hard AI at once; /start hard user lets the "
    "AI go first; /start easy hard lets two AIs play while you watch.\n"
    "• Bigger boards: /start hard 5 (5×5, 4 in a row), /start hard 6 4, /start user user 7, "
    "or the size buttons in the menu (up to 8×8).\n"
    "• With friends: /challenge in a group (or reply /challenge to someone, or /challenge "
    "@name), or type @{bot} in any chat.\n"
    "• /stop ends your current game (it counts as resigning), /stats shows your record, "
    "/top the group's best players.\n"
    "Levels: Easy plays at random, Medium takes wins and blocks yours, Hard never loses."
)

BAD_PARAMETERS = (
    "Bad parameters!\n"
    "Usage: /start [X] [O] with user, easy, medium or hard — e.g. /start hard or /start hard user"
)
BAD_CHALLENGE = "Usage: /challenge, /challenge @name, or reply /challenge to someone's message."
CHALLENGE_YOURSELF = "You can't challenge yourself. Try /start user user for one phone."
CHALLENGE_BOT = "Bots can't play. Challenge a person, or play the AI with /start hard."
GROUP_ONLY = "Challenges are for groups. Here, try /start hard, or invite a friend inline: @{bot}"

MENU_PLAY_X = X_SYMBOL + " {level}"
MENU_PLAY_O = O_SYMBOL + " {level}"
MENU_TWO_PLAYERS = "👥 Two players"
MENU_CHALLENGE = "⚔️ Challenge"
MENU_AI_MATCH = "🤖 AI vs AI"
MENU_SIZE = "{size}×{size}"
MENU_SIZE_CHOSEN = "✔{size}×{size}"
BOARD_SIZE = "{size}×{size}, {k} in a row"
MENU_HELP = "❓ Help"

BUTTON_RESIGN = "🏳 Resign"
BUTTON_PLAY_AGAIN = "🔁 Play again"
BUTTON_SWAP_SIDES = "🔄 Swap sides"
BUTTON_OTHER_LEVEL = "🎚 Another level"
BUTTON_WATCH_AGAIN = "🔁 Watch again"
BUTTON_JOIN = "✋ Join"
BUTTON_ACCEPT = "✅ Accept"
BUTTON_DECLINE = "🙅 Decline"
BUTTON_CANCEL = "✖ Cancel"
BUTTON_REMATCH = "🔁 Rematch"
BUTTON_REVIEW = "🔍 Review"

AI_NAME = "{level} AI"
TWO_PLAYERS_TITLE = "👥 Two players, one phone"
VERSUS = "{x} {x_name} vs {o} {o_name}"
NOBODY_YET = "?"

YOUR_MOVE = "Your move {mark}: tap a free cell."
MARK_TO_MOVE = "{mark} to move: tap a free cell."
NAME_TO_MOVE = "{name}'s turn {mark}"
AI_THINKING = "{name} {mark} is thinking…"
NUDGE_LINE = "⏰ {name}, it's your move!"

OPEN_CHALLENGE = "{name} wants to play! The first to tap Join plays {o}."
INVITATION = "{name} challenges {invited}! Accept?"
CHALLENGE_CANCELLED = "{name} withdrew the challenge."
CHALLENGE_DECLINED = "{invited} declined the challenge."
CHALLENGE_EXPIRED = "Nobody joined in time."

RESULT_YOU_WON = "You won! 🎉 Nicely played."
RESULT_YOU_LOST = "The AI won this time. Play again?"
RESULT_DRAW = "Nobody loses 🤝"
RESULT_YOU_RESIGNED = "You resigned. 🏳"
RESULT_MARK_WON = "Congratulations, {mark}! 🎉"
RESULT_MARK_RESIGNED = "{mark} resigned. 🏳"
RESULT_NAME_WON = "{name} wins! 🎉"
RESULT_NAME_RESIGNED = "{name} resigned. 🏳"
RESULT_NAME_TIMED_OUT = "⌛ {name} ran out of time."
RESULT_AI_WON = "{name} wins the match! 🏆"
GAME_CLOSED = "This game was closed."

NUDGE_MESSAGE = "⏰ {name}, it's your move in this game!"

POPUP_GAME_OVER = "This game is over. Start a new one with /start."
POPUP_STALE = "This board is out of date: the game has moved on."
# Typed moves: the Hyperskill texts.
ERROR_NOT_NUMBERS = "You should enter numbers!"
ERROR_OUT_OF_RANGE = "Coordinates should be from 1 to {size}!"
ERROR_OCCUPIED = "This cell is occupied! Choose another one!"
POPUP_OCCUPIED = ERROR_OCCUPIED
POPUP_NOT_YOUR_TURN = "It's not your turn."
POPUP_NOT_A_PLAYER = "This is not your game."
POPUP_NO_GAME = "This game doesn't exist any more."
POPUP_CONFLICT = "The board just changed. Have a look and tap again."
POPUP_UNKNOWN_BUTTON = "This button doesn't work any more. Send /start for a new game."
POPUP_ERROR = "Something went wrong. Please try again."
POPUP_WAITING = "Waiting for an opponent to join."
POPUP_OWN_GAME = "You can't join your own game: wait for a friend."
POPUP_NOT_INVITED = "This challenge is for someone else."
POPUP_NOT_CHALLENGER = "Only the challenger can cancel."
POPUP_REMATCH_TAKEN = "The rematch has already started."
POPUP_JOINED = "You're in! You play {mark}."
POPUP_NO_REVIEW = "Review needs a finished 3×3 game of yours."

REVIEW_WON = "You won this one: nothing to review. 🎉"
REVIEW_PERFECT = "Every move you made was the best one. Against perfect play a draw is the limit."
REVIEW_MISTAKE = "Move {move}: you played {played} — {better} was better: it {would}."
REVIEW_WOULD_WIN = "would have won"
REVIEW_WOULD_WIN_SOONER = "would have won sooner"
REVIEW_WOULD_DRAW = "would have held the draw"
REVIEW_WOULD_LOSE_LATER = "would have held out longer"

FORGET_ASK = (
    "Delete everything this bot stores about you? Your name, language and your games against "
    "the AI are deleted; games against people stay for them, without your name. Running games "
    "of yours end. This cannot be undone."
)
FORGET_DONE = (
    "Done. Deleted: your profile, {games} games and {moves} moves. {anonymized} games against "
    "people no longer name you."
)
FORGET_NOTHING = "There was nothing stored about you."
FORGET_KEPT = "Nothing was deleted."
BUTTON_FORGET_YES = "🗑 Yes, delete"
BUTTON_FORGET_NO = "Keep my data"
POPUP_NOT_YOURS = "Only the person who asked can answer this."

NO_GAME = "There is no game in progress. Send /start to play."
STOPPED = "Game over: you resigned. Send /start to play again."
STOPPED_AI_MATCH = "The AI match was stopped."
STOPPED_CHALLENGE = "Your challenge was withdrawn."
NOT_YOUR_TURN = "Wait for your turn."
SORRY_ERROR = "Sorry, something went wrong. Your game is safe; please try again."
CONFLICT = "The game changed just before your message arrived. Have a look and try again."

STATS_EMPTY = "No finished games yet. Send /start to play one!"
STATS_HEADER = "Your record (wins / losses / draws):"
STATS_LINE = "{opponent}: {wins} / {losses} / {draws}"
STATS_HUMANS = "People"
STATS_TOTAL = "Total: {wins} / {losses} / {draws} in {played} games"
STATS_STREAK = "Winning streak: {current} now, {best} at best"

TOP_EMPTY = "No games between people in this chat yet. Start one with /challenge!"
TOP_HEADER = "🏆 Best players here (wins / losses / draws):"
TOP_LINE = "{rank}. {name}: {wins} / {losses} / {draws}"
TOP_PRIVATE = "/top shows a group's leaderboard: use it in a group."

INLINE_CHALLENGE_X_TITLE = "Challenge: you play ❌"
INLINE_CHALLENGE_O_TITLE = "Challenge: you play ⭕"
INLINE_CHALLENGE_DESCRIPTION = (
    "A friend in this chat taps Join to play you. Bigger board: type a size too, e.g. 5"
)
INLINE_AI_TITLE = "Play the {level} AI here"
INLINE_AI_DESCRIPTION = (
    "Everyone in this chat watches you play. Bigger board: type a size too, e.g. 5"
)
INLINE_CHALLENGE_TEXT = "{name} wants to play Tic-Tac-Toe as {mark}! Tap Join to play {other}."
INLINE_AI_TEXT = "{name} vs {level} AI: {name}'s move ❌, tap a cell."

COMMANDS = (
    ("start", "New game: menu, or /start hard, /start hard user …"),
    ("challenge", "Challenge someone in a group"),
    ("stop", "End your current game"),
    ("stats", "Your wins, losses and draws"),
    ("top", "The group's leaderboard"),
    ("help", "How to play"),
    ("forget", "Delete everything stored about you"),
)

# The bot's profile: what people see before pressing Start (up to 512 characters), and on its
# profile page and in shared links (up to 120).
DESCRIPTION = (
    f"Tic-Tac-Toe {X_SYMBOL} {O_SYMBOL} right in the chat: tap the board to move.\n\n"
    "• Play the AI at three levels (Hard never loses), on boards up to 8×8.\n"
    "• Challenge friends in a group, or in any chat by typing the bot's name.\n"
    "• Watch two AIs play, check your record with /stats.\n\n"
    "Every game is saved. Press Start to play!"
)
SHORT_DESCRIPTION = "Tic-Tac-Toe against an AI that never loses, or with friends in any chat."

BUTTON_ADD_TO_GROUP = "➕ Add to a group"
BUTTON_CHALLENGE_FRIEND = "⚔️ Challenge a friend"
# Posted once when someone adds the bot to a group.
GROUP_HELLO = (
    "Hi! Send /start to play Tic-Tac-Toe here, or /challenge to play someone in this group."
)

# The Mini App (WEBAPP_URL): the button under a board, and the private chat's menu button.
BUTTON_OPEN_BOARD = "🎮 Open board"
MENU_BUTTON_WEBAPP = "Play"
