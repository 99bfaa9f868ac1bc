// Sounds: a short beep for a move, two rising notes for the end of a game and three high
// beeps when the player's own clock runs low, made with WebAudio (no files to load). The
// switch in the game's top bar turns them off, and the low-time buzz with them; the choice
// is kept on this device (localStorage). A browser starts sound only after a gesture: the
// first tap or key on the page starts it, so the sounds of the other side's moves follow.
"use strict";

import { haptic } from "./net.js";
import { t } from "./words.js";

const KEY = "tictactoe.sound";
const SVG = "http://www.w3.org/2000/svg";
// Each sound as its notes: [frequency (Hz), start (s), length (s)].
const NOTES = {
  move: [[660, 0, 0.06]],
  end: [[523, 0, 0.12], [784, 0.13, 0.2]],
  low: [[880, 0, 0.08], [880, 0.15, 0.08], [880, 0.3, 0.08]],
};

let context = null;

function stored() {
  try { return localStorage.getItem(KEY); } catch (e) { return null; }
}

export function soundOn() {
  return stored() !== "off";
}

function keep(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (e) { /* not kept here */ }
}

// The AudioContext, made and resumed within a gesture (browsers start audio only so).
function wake() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context || !soundOn()) return;
  try {
    if (!context) context = new Context();
    if (context.state === "suspended") context.resume();
  } catch (e) { context = null; }
}

// Plays `kind` ("move", "end" or "low"), unless the switch is off.
export function sound(kind) {
  if (!soundOn() || !context || context.state !== "running") return;
  const now = context.currentTime;
  for (const [frequency, start, length] of NOTES[kind]) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    // A soft attack and release: no click at either end.
    gain.gain.setValueAtTime(0, now + start);
    gain.gain.linearRampToValueAtTime(0.15, now + start + 0.01);
    gain.gain.linearRampToValueAtTime(0, now + start + length);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.02);
  }
}

// The player's clock runs low: three beeps and a warning buzz, unless the switch is off.
export function lowTime() {
  if (!soundOn()) return;
  sound("low");
  haptic("notification", "warning");
}

function speaker(on) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const shapes = [["path", { d: "M4 9h4l5-4v14l-5-4H4z", class: "body" }]];
  if (on) shapes.push(["path", { d: "M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" }]);
  else shapes.push(["path", { d: "M16 9l6 6M22 9l-6 6" }]);
  for (const [tag, attributes] of shapes) {
    const shape = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) shape.setAttribute(key, value);
    svg.append(shape);
  }
  return svg;
}

function drawSwitch(button) {
  const on = soundOn();
  button.setAttribute("aria-pressed", String(on));
  button.setAttribute("aria-label", t("PAGE.sound"));
  button.title = t("PAGE.sound");
  button.replaceChildren(speaker(on));
}

// The switch (a toggle button), and the gestures that start sound. Once, after the words.
export function setUpSound(button) {
  drawSwitch(button);
  button.addEventListener("click", () => {
    keep(!soundOn());
    drawSwitch(button);
    if (soundOn()) { wake(); sound("move"); }
  });
  for (const gesture of ["pointerdown", "keydown"]) document.addEventListener(gesture, wake, true);
}
