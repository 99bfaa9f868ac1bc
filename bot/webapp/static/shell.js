// Before anything else (a plain script in <head>): the page in its theme's colours from the
// first paint. Telegram opens a Mini App with its theme in the address's fragment
// (#…&tgWebAppThemeParams={…}); telegram.org's script, which app.js reads it from later, may
// take seconds to arrive. Without a theme there, app.css follows the system's light or dark.
"use strict";

(() => {
  const names = { bg_color: "--bg", text_color: "--text", hint_color: "--hint",
    link_color: "--link", button_color: "--button", button_text_color: "--button-text",
    secondary_bg_color: "--secondary-bg" };
  let theme = null;
  try {
    const fragment = new URLSearchParams(location.hash.slice(1));
    theme = JSON.parse(fragment.get("tgWebAppThemeParams") || "null");
  } catch (e) { /* no theme in the address */ }
  if (!theme || typeof theme !== "object") return;
  const root = document.documentElement;
  for (const [key, variable] of Object.entries(names)) {
    if (/^#[0-9a-f]{3,8}$/i.test(theme[key] || "")) root.style.setProperty(variable, theme[key]);
  }
  const bg = /^#([0-9a-f]{6})$/i.exec(theme.bg_color || "");
  if (bg) {
    const n = parseInt(bg[1], 16);
    const [r, g, b] = [n >> 16, (n >> 8) & 255, n & 255];
    // Telegram's script's own rule for colorScheme (isColorDark).
    root.dataset.scheme = Math.sqrt(0.299 * r * r + 0.587 * g * g + 0.114 * b * b) < 120 ? "dark" : "light";
  }
})();
