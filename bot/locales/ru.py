"""Russian (informal "ты"): the same names as `en.py`; a missing one falls back to English."""

from __future__ import annotations

from bot.locales.en import *  # noqa: F403
from bot.locales.en import O_SYMBOL, X_SYMBOL

LEVEL_NAMES = {"easy": "Лёгкий", "medium": "Средний", "hard": "Сложный"}

WELCOME = (
    f"Добро пожаловать в крестики-нолики! {X_SYMBOL} {O_SYMBOL}\n\n"
    f"Выбери игру ниже. В первом ряду ты играешь за {X_SYMBOL} и ходишь первым; "
    f"во втором — за {O_SYMBOL}, а начинает ИИ. "
    "Нажми на клетку, чтобы сходить, или напиши её координаты, например 2 3."
)
WELCOME_GROUP = (
    f"Крестики-нолики! {X_SYMBOL} {O_SYMBOL}\n\n"
    "Вызови кого-нибудь здесь, сыграй с ИИ на глазах у всех или посмотри, как играют два ИИ."
)

HELP = (
    "Как играть\n"
    "• Нажми на свободную клетку поля, чтобы поставить туда свой знак, или напиши ход: 2 3 "
    "(строка, столбец, 1–3) или номер клетки 1–9 (слева направо, сверху вниз). "
    "В группах отвечай на сообщение с полем.\n"
    "• Три в ряд — по горизонтали, вертикали или диагонали — это победа.\n"
    "• /start открывает меню; /start hard — сразу игра со Сложным ИИ; /start hard user — "
    "первым ходит ИИ; /start easy hard — играют два ИИ, а ты смотришь.\n"
    "• Поля побольше: /start hard 5 (5×5, 4 в ряд), /start hard 6 4, /start user user 7 "
    "или кнопки размера в меню (до 8×8).\n"
    "• С друзьями: /challenge в группе (или ответь /challenge на чьё-то сообщение, или "
    "/challenge @имя) либо напиши @{bot} в любом чате.\n"
    "• /stop завершает текущую игру (это засчитывается как сдача), /stats — твоя статистика, "
    "/top — лучшие игроки группы.\n"
    "Уровни: Лёгкий ходит наугад, Средний не упускает победу и блокирует твою, "
    "Сложный никогда не проигрывает."
)

BAD_PARAMETERS = (
    "Bad parameters!\n"
    "Как использовать: /start [X] [O], где каждый — user, easy, medium или hard. "
    "Например: /start hard или /start hard user"
)
BAD_CHALLENGE = (
    "Как вызвать: /challenge, /challenge @имя или ответь /challenge на чьё-нибудь сообщение."
)
CHALLENGE_YOURSELF = (
    "Нельзя вызвать самого себя. Попробуй /start user user — игра вдвоём на одном телефоне."
)
CHALLENGE_BOT = "Боты не играют. Вызови человека или сыграй с ИИ: /start hard."
GROUP_ONLY = (
    "Вызовы работают в группах. Здесь попробуй /start hard или позови друга через inline: @{bot}"
)

MENU_PLAY_X = X_SYMBOL + " {level}"
MENU_PLAY_O = O_SYMBOL + " {level}"
MENU_TWO_PLAYERS = "👥 Вдвоём"
MENU_CHALLENGE = "⚔️ Вызов"
MENU_AI_MATCH = "🤖 ИИ против ИИ"
MENU_SIZE = "{size}×{size}"
MENU_SIZE_CHOSEN = "✔{size}×{size}"
BOARD_SIZE = "{size}×{size}, {k} в ряд"
MENU_HELP = "❓ Помощь"

BUTTON_RESIGN = "🏳 Сдаться"
BUTTON_PLAY_AGAIN = "🔁 Ещё раз"
BUTTON_SWAP_SIDES = "🔄 Сменить сторону"
BUTTON_OTHER_LEVEL = "🎚 Другой уровень"
BUTTON_WATCH_AGAIN = "🔁 Смотреть ещё"
BUTTON_JOIN = "✋ Играть"
BUTTON_ACCEPT = "✅ Принять"
BUTTON_DECLINE = "🙅 Отказаться"
BUTTON_CANCEL = "✖ Отменить"
BUTTON_REMATCH = "🔁 Реванш"
BUTTON_REVIEW = "🔍 Разбор"

AI_NAME = "{level} ИИ"
TWO_PLAYERS_TITLE = "👥 Вдвоём на одном телефоне"
VERSUS = "{x} {x_name} — {o} {o_name}"
NOBODY_YET = "?"

YOUR_MOVE = "Твой ход {mark}: нажми на свободную клетку."
MARK_TO_MOVE = "Ходит {mark}: нажми на свободную клетку."
NAME_TO_MOVE = "Ходит {name} {mark}"
AI_THINKING = "{name} {mark} думает…"
NUDGE_LINE = "⏰ {name}, твой ход!"

OPEN_CHALLENGE = "{name} хочет сыграть! Кто первым нажмёт «Играть», играет за {o}."
INVITATION = "{name} вызывает {invited} на игру! Принимаешь?"
CHALLENGE_CANCELLED = "{name} отменяет вызов."
CHALLENGE_DECLINED = "{invited} отказывается от вызова."
CHALLENGE_EXPIRED = "Никто не присоединился вовремя."

RESULT_YOU_WON = "Победа! 🎉 Отлично сыграно."
RESULT_YOU_LOST = "На этот раз победил ИИ. Сыграем ещё?"
RESULT_DRAW = "Никто не проиграл 🤝"
RESULT_YOU_RESIGNED = "Партия сдана. 🏳"
RESULT_MARK_WON = "Поздравляем, {mark}! 🎉"
RESULT_MARK_RESIGNED = "{mark} сдаётся. 🏳"
RESULT_NAME_WON = "{name} побеждает! 🎉"
RESULT_NAME_RESIGNED = "{name} сдаётся. 🏳"
RESULT_NAME_TIMED_OUT = "⌛ У {name} закончилось время."
RESULT_AI_WON = "{name} побеждает в матче! 🏆"
GAME_CLOSED = "Эта игра закрыта."

NUDGE_MESSAGE = "⏰ {name}, твой ход в этой игре!"

POPUP_GAME_OVER = "Эта игра окончена. Начни новую: /start."
POPUP_STALE = "Это поле устарело: игра уже продвинулась дальше."
ERROR_NOT_NUMBERS = "Нужно ввести числа!"
ERROR_OUT_OF_RANGE = "Координаты должны быть от 1 до {size}!"
ERROR_OCCUPIED = "Эта клетка занята! Выбери другую!"
POPUP_OCCUPIED = ERROR_OCCUPIED
POPUP_NOT_YOUR_TURN = "Сейчас не твой ход."
POPUP_NOT_A_PLAYER = "Это не твоя игра."
POPUP_NO_GAME = "Этой игры больше нет."
POPUP_CONFLICT = "Поле только что изменилось. Посмотри и нажми ещё раз."
POPUP_UNKNOWN_BUTTON = "Эта кнопка больше не работает. Отправь /start, чтобы начать новую игру."
POPUP_ERROR = "Что-то пошло не так. Попробуй ещё раз."
POPUP_WAITING = "Ждём, пока присоединится соперник."
POPUP_OWN_GAME = "Нельзя присоединиться к своей же игре: подожди друга."
POPUP_NOT_INVITED = "Этот вызов адресован не тебе."
POPUP_NOT_CHALLENGER = "Отменить вызов может только тот, кто его бросил."
POPUP_REMATCH_TAKEN = "Реванш уже начался."
POPUP_JOINED = "Ты в игре! Ты играешь за {mark}."
FORGET_ASK = (
    "Удалить всё, что бот хранит о тебе? Имя, язык и твои игры с ИИ будут удалены; игры с "
    "людьми останутся у них, но без твоего имени. Текущие игры закончатся. Это необратимо."
)
FORGET_DONE = (
    "Готово. Удалены: профиль, партий: {games}, ходов: {moves}. Партий с людьми, где больше нет "
    "твоего имени: {anonymized}."
)
FORGET_NOTHING = "О тебе ничего не хранилось."
FORGET_KEPT = "Ничего не удалено."
BUTTON_FORGET_YES = "🗑 Да, удалить"
BUTTON_FORGET_NO = "Оставить"
POPUP_NOT_YOURS = "Ответить может только тот, кто спросил."

POPUP_NO_REVIEW = "Разбор доступен только для твоей завершённой игры 3×3."

REVIEW_WON = "Эта партия выиграна: разбирать нечего. 🎉"
REVIEW_PERFECT = "Каждый твой ход был лучшим. Против идеальной игры ничья — это максимум."
REVIEW_MISTAKE = "Ход {move}: у тебя {played}, а лучше было {better} — этот ход {would}."
REVIEW_WOULD_WIN = "принёс бы победу"
REVIEW_WOULD_WIN_SOONER = "принёс бы победу быстрее"
REVIEW_WOULD_DRAW = "сохранил бы ничью"
REVIEW_WOULD_LOSE_LATER = "позволил бы продержаться дольше"

NO_GAME = "Сейчас нет активной игры. Отправь /start, чтобы сыграть."
STOPPED = "Игра окончена: партия сдана. Отправь /start, чтобы сыграть снова."
STOPPED_AI_MATCH = "Матч между ИИ остановлен."
STOPPED_CHALLENGE = "Твой вызов отменён."
NOT_YOUR_TURN = "Дождись своего хода."
SORRY_ERROR = "Извини, что-то пошло не так. Твоя игра сохранена — попробуй ещё раз."
CONFLICT = "Игра изменилась, пока шло твоё сообщение. Посмотри и попробуй ещё раз."

STATS_EMPTY = "Пока нет завершённых игр. Отправь /start и сыграй!"
STATS_HEADER = "Твоя статистика (победы / поражения / ничьи):"
STATS_LINE = "{opponent}: {wins} / {losses} / {draws}"
STATS_HUMANS = "Люди"
STATS_TOTAL = "Всего: {wins} / {losses} / {draws}, сыграно партий: {played}"
STATS_STREAK = "Серия побед: сейчас {current}, рекорд {best}"

TOP_EMPTY = "В этом чате люди ещё не играли друг с другом. Начни игру командой /challenge!"
TOP_HEADER = "🏆 Лучшие игроки чата (победы / поражения / ничьи):"
TOP_LINE = "{rank}. {name}: {wins} / {losses} / {draws}"
TOP_PRIVATE = "/top показывает рейтинг группы: используй команду в группе."

INLINE_CHALLENGE_X_TITLE = "Вызов: ты играешь за ❌"
INLINE_CHALLENGE_O_TITLE = "Вызов: ты играешь за ⭕"
INLINE_CHALLENGE_DESCRIPTION = (
    "Друг в этом чате нажмёт «Играть» и сыграет с тобой. Поле больше: допиши размер, например 5"
)
INLINE_AI_TITLE = "Сыграть здесь против ИИ ({level})"
INLINE_AI_DESCRIPTION = (
    "Все в этом чате смотрят, как ты играешь. Поле больше: допиши размер, например 5"
)
INLINE_CHALLENGE_TEXT = (
    "{name} хочет сыграть в крестики-нолики за {mark}! Нажми «Играть», чтобы играть за {other}."
)
INLINE_AI_TEXT = "{name} — {level} ИИ: ходит {name} ❌, нажми на клетку."

COMMANDS = (
    ("start", "Новая игра: меню или /start hard, /start hard user …"),
    ("challenge", "Вызвать кого-нибудь в группе"),
    ("stop", "Завершить текущую игру"),
    ("stats", "Твои победы, поражения и ничьи"),
    ("top", "Рейтинг группы"),
    ("help", "Как играть"),
    ("forget", "Удалить всё, что бот хранит о тебе"),
)

DESCRIPTION = (
    f"Крестики-нолики {X_SYMBOL} {O_SYMBOL} прямо в чате: нажимай на поле, чтобы ходить.\n\n"
    "• Играй с ИИ трёх уровней (Сложный никогда не проигрывает) на полях до 8×8.\n"
    "• Вызывай друзей в группе или в любом чате, набрав имя бота.\n"
    "• Смотри, как играют два ИИ, и следи за своей статистикой: /stats.\n\n"
    "Все партии сохраняются. Нажми «Старт», чтобы сыграть!"
)
SHORT_DESCRIPTION = (
    "Крестики-нолики с ИИ, который никогда не проигрывает, или с друзьями в любом чате."
)

BUTTON_ADD_TO_GROUP = "➕ Добавить в группу"
BUTTON_CHALLENGE_FRIEND = "⚔️ Вызвать друга"
GROUP_HELLO = (
    "Привет! Отправь /start, чтобы сыграть в крестики-нолики, "
    "или /challenge, чтобы вызвать кого-нибудь из группы."
)

BUTTON_OPEN_BOARD = "🎮 Открыть доску"
MENU_BUTTON_WEBAPP = "Играть"
