// The Mini App: the start page (open games, a new game) and a game's live board.
// Every API call carries Telegram's initData; the server checks it and decides everything.
"use strict";

const tg = (window.Telegram && window.Telegram.WebApp) || null;
const initData = tg ? tg.initData : "";
// Marks are drawn (SVG), not emoji: a phone or a test browser may lack an emoji font.
const SYMBOL = { X: "X", O: "O" };
const SVG = "http://www.w3.org/2000/svg";
const SHAPES = {
  X: [["path", { d: "M24 24 L76 76 M76 24 L24 76" }]],
  O: [["circle", { cx: 50, cy: 50, r: 28 }]],
};
const LEVEL = { easy: "Easy AI", medium: "Medium AI", hard: "Hard AI" };
const $ = (id) => document.getElementById(id);
let current = null; // the game shown: its last state
let stream = null;  // the AbortController of its events stream
let newGame = { level: "hard", mark: "X", size: 3 };

function applyTheme() {
  const theme = (tg && tg.themeParams) || {};
  const names = { bg_color: "--bg", text_color: "--text", hint_color: "--hint",
    link_color: "--link", button_color: "--button", button_text_color: "--button-text",
    secondary_bg_color: "--secondary-bg" };
  for (const [key, variable] of Object.entries(names)) {
    if (theme[key]) document.documentElement.style.setProperty(variable, theme[key]);
  }
  if (theme.button_color) document.documentElement.style.setProperty("--last", theme.button_color);
  document.documentElement.dataset.scheme = (tg && tg.colorScheme) || "light";
}

function haptic(kind, style) {
  // Older clients have no HapticFeedback (and throw on unsupported calls).
  try {
    if (!tg || !tg.HapticFeedback) return;
    if (kind === "impact") tg.HapticFeedback.impactOccurred(style);
    else tg.HapticFeedback.notificationOccurred(style);
  } catch (e) { /* no haptics here */ }
}

async function api(path, body) {
  const options = { headers: { Authorization: "tma " + initData } };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch("api/" + path, options);
  const data = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, data };
}

function say(text) {
  $("message").textContent = text;
  $("message").hidden = !text;
}

function markIcon(mark) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", "mark " + mark);
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attributes] of SHAPES[mark]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) shape.setAttribute(key, value);
    svg.append(shape);
  }
  return svg;
}

function name(player) {
  return player.ai ? LEVEL[player.ai] : (player.name || "waiting…");
}

function statusText(game) {
  if (game.status === "open") return "Waiting for an opponent";
  if (game.status === "active") {
    if (game.your_turn) return "Your turn as " + SYMBOL[game.to_move];
    const mover = game.players[game.to_move];
    return mover.ai ? name(mover) + " is thinking…" : name(mover) + "'s turn as " + SYMBOL[game.to_move];
  }
  if (game.result === "draw") return "Draw";
  if (game.result === "X" || game.result === "O") {
    const mine = game.you.length === 1 && game.you[0] === game.result;
    const lost = game.you.length === 1 && !mine;
    const how = game.end_reason === "resigned" ? " (resigned)" : game.end_reason === "timeout" ? " (timeout)" : "";
    return game.result + " wins" + how + (mine ? " — you win! 🎉" : lost ? " — you lose" : "");
  }
  return "Game over";
}

function renderGame(game) {
  const before = current && current.id === game.id ? current.cells : null;
  current = game;
  $("rules").textContent = game.size + "×" + game.size + ", " + game.k + " in a row";
  const players = $("players");
  players.replaceChildren(...["X", "O"].map((mark) => {
    const span = document.createElement("span");
    span.append(markIcon(mark), name(game.players[mark]) + (game.you.includes(mark) ? " (you)" : ""));
    if (game.to_move === mark) span.className = "turn";
    return span;
  }));
  $("status").textContent = statusText(game);
  const board = $("board");
  board.style.setProperty("--n", game.size);
  const win = new Set(game.winning_line);
  const cells = [];
  for (let i = 0; i < game.cells.length; i++) {
    const mark = game.cells[i];
    const cell = document.createElement("button");
    cell.className = "cell" + (mark !== "_" ? " " + mark : "") + (i === game.last_cell ? " last" : "")
      + (win.has(i) ? " win" : "") + (before && before[i] !== mark ? " new" : "");
    if (mark !== "_") cell.append(markIcon(mark));
    cell.dataset.cell = String(i);
    cell.setAttribute("aria-label", "row " + (Math.floor(i / game.size) + 1) + " column " + (i % game.size + 1));
    cell.disabled = !(game.your_turn && mark === "_");
    cell.addEventListener("click", () => play(i));
    cells.push(cell);
  }
  board.replaceChildren(...cells);
  board.dataset.ply = String(game.ply);
  board.dataset.status = game.status;
  $("moves").replaceChildren(...game.moves.map((move) => {
    const li = document.createElement("li");
    li.className = move.mark;
    const mark = document.createElement("span");
    mark.textContent = move.mark;
    li.append(mark, " " + (Math.floor(move.cell / game.size) + 1) + "·" + (move.cell % game.size + 1));
    return li;
  }));
}

async function play(cell) {
  const game = current;
  if (!game || !game.your_turn) return;
  haptic("impact", "light");
  for (const button of $("board").children) button.disabled = true;
  const { ok, data } = await api("games/" + game.id + "/moves", { ply: game.ply, cell });
  if (data.game) renderGame(data.game);
  if (!ok) haptic("notification", "error");
  else if (data.game && data.game.status === "finished") haptic("notification", "success");
}

async function follow(gameId) {
  // Server-sent events read through fetch: EventSource cannot send the initData header.
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch("api/games/" + gameId + "/events", {
        headers: { Authorization: "tma " + initData }, signal: controller.signal });
      if (!response.ok) return;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = chunk.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (chunk.startsWith("event: gone")) return;
          if (chunk.startsWith("event: state") && data) {
            const game = JSON.parse(data);
            const moved = current && game.ply !== current.ply;
            renderGame(game);
            if (moved && game.status === "finished") haptic("notification", "success");
          }
        }
      }
    } catch (e) {
      if (controller.signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function openGame(gameId) {
  const { ok, status, data } = await api("games/" + gameId);
  if (!ok) {
    say(status === 403 ? "This is not your game." : status === 401 ? "Open this page from Telegram." : "No such game.");
    return;
  }
  say("");
  $("home").hidden = true;
  $("game").hidden = false;
  history.replaceState(null, "", "?game=" + gameId);
  renderGame(data.game);
  follow(gameId);
}

function choose(groupId, key, value) {
  newGame[key] = value;
  for (const button of $(groupId).children) {
    button.classList.toggle("chosen", button.dataset[key] === String(value));
  }
}

async function openHome() {
  if (stream) stream.abort();
  current = null;
  $("game").hidden = true;
  history.replaceState(null, "", "./");
  const { ok, data } = await api("games");
  if (!ok) { say("Open this page from Telegram."); return; }
  say("");
  $("home").hidden = false;
  $("hello").textContent = "Hi, " + data.me.name + "!";
  $("no-games").hidden = data.games.length > 0;
  $("open-games").replaceChildren(...data.games.map((game) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    const who = game.opponent ? name(game.opponent) : "yourself";
    button.append(markIcon(game.you[0] || "X"), " vs " + who + " · " + game.size + "×" + game.size);
    const turn = document.createElement("span");
    turn.className = "hint";
    turn.textContent = game.your_turn ? "your turn" : game.status === "open" ? "waiting" : "";
    button.append(turn);
    button.addEventListener("click", () => openGame(game.id));
    li.append(button);
    return li;
  }));
}

async function startGame() {
  haptic("impact", "medium");
  const { ok, data } = await api("games", newGame);
  if (ok) openGame(data.game.id);
  else say(data.error || "Could not start a game.");
}

function setUp() {
  applyTheme();
  if (tg) {
    tg.ready();
    if (tg.expand) tg.expand();
    if (tg.onEvent) tg.onEvent("themeChanged", applyTheme);
  }
  $("sizes").replaceChildren(...[3, 4, 5, 6, 7, 8].map((size) => {
    const button = document.createElement("button");
    button.textContent = size + "×" + size;
    button.dataset.size = String(size);
    button.addEventListener("click", () => choose("sizes", "size", size));
    return button;
  }));
  choose("sizes", "size", 3);
  for (const button of $("levels").children) button.addEventListener("click", () => choose("levels", "level", button.dataset.level));
  for (const button of $("marks").children) button.addEventListener("click", () => choose("marks", "mark", button.dataset.mark));
  $("start").addEventListener("click", startGame);
  $("back").addEventListener("click", openHome);
  if (!initData) { say("Open this page from Telegram: it needs Telegram's sign-in."); return; }
  const fromUrl = new URLSearchParams(location.search).get("game");
  const fromStart = ((tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "").match(/^g([0-9]+)$/);
  const gameId = fromUrl || (fromStart && fromStart[1]);
  if (gameId) openGame(gameId); else openHome();
}

setUp();
