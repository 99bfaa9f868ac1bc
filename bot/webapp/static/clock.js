// The clocks of a game on the clock (strangers'): each side's time left as the server read
// it, the running one counted down here between two states, shown as the chat board shows
// them (1:00, 0:07: whole seconds, rounded up, so 0:00 only once the time is out). The page
// never ends a game itself: the server flags it, and the live stream brings the ending.
// A running clock under LOW_SECONDS turns the alert colour; the player's own warns them
// once a turn, with a sound and a buzz (sound.js: unless they turned sounds off).
"use strict";

import { lowTime } from "./sound.js";

// How often the running clock is redrawn (ms): often enough that a second never lags.
const TICK_MS = 200;
// Below this many seconds a running clock is marked low.
const LOW_SECONDS = 10;

let anchor = null; // { clock, at }: the clock of the state drawn, and when it came
let timer = null;
let mine = [];     // the marks the page's user plays (whose low time warns them)
let turn = "";     // the turn counted now (game and move number), and whether it warned
let warned = false;

// The game drawn now: its clock is counted from now on, unless it is the one counted already
// (the same state drawn again).
export function setClock(game) {
  const clock = game && game.clock;
  if (!clock) {
    anchor = null;
  } else if (!anchor || anchor.clock !== clock) {
    anchor = { clock, at: performance.now() };
  }
  mine = (game && game.you) || [];
  const now = game ? game.id + ":" + game.ply : "";
  if (now !== turn) { turn = now; warned = false; }
  const running = Boolean(anchor && anchor.clock.running);
  if (running && !timer) timer = setInterval(tick, TICK_MS);
  if (!running && timer) { clearInterval(timer); timer = null; }
}

// A side's clock as an element for its chip (null without clocks), kept up to date.
export function clockFor(mark) {
  if (!anchor || !(mark in anchor.clock.left)) return null;
  const element = document.createElement("span");
  element.className = "clock";
  element.dataset.mark = mark;
  element.setAttribute("role", "timer");
  show(element);
  return element;
}

function secondsLeft(mark) {
  const { clock, at } = anchor;
  const spent = clock.running === mark ? (performance.now() - at) / 1000 : 0;
  return Math.max(0, clock.left[mark] - spent);
}

export function shown(seconds) {
  const whole = Math.ceil(seconds - 1e-6);
  return Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
}

function show(element) {
  const mark = element.dataset.mark;
  const left = secondsLeft(mark);
  const text = shown(left);
  if (element.textContent !== text) element.textContent = text;
  const running = anchor.clock.running === mark;
  const low = running && left < LOW_SECONDS;
  element.classList.toggle("running", running);
  element.classList.toggle("low", low);
  if (low && left > 0 && mine.includes(mark) && !warned) {
    warned = true;
    lowTime();
  }
}

function tick() {
  if (!anchor) return;
  for (const element of document.querySelectorAll("#players .clock")) show(element);
}
