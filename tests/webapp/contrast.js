// The page's contrast as a reader sees it (WCAG 2.1, 1.4.11 non-text contrast): walks the
// board's cells, marks, lines and rings, and the player chips, in the page's computed colours
// (opacity included), and returns each pair that must differ with its contrast ratio.
// Evaluated by tests/webapp/test_browser_look.py as `page.evaluate(source)`.
(() => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });

  // Any CSS colour (rgb(), color(srgb …), a name) as [r, g, b, a] with a from 0 to 1.
  function rgba(css) {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = "rgba(0, 0, 0, 0)";
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return [r, g, b, a / 255];
  }
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };
  const luminance = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");

  // How much of an element shows: the product of its and its ancestors' opacity.
  function opacity(element) {
    let value = 1;
    for (let e = element; e && e.nodeType === 1; e = e.parentElement || e.parentNode) {
      value *= Number(getComputedStyle(e).opacity);
    }
    return value;
  }
  // The colour behind an element's content: its own background over its ancestors', down to
  // the page's (each faded by its opacity).
  function backdrop(element) {
    const layers = [];
    for (let e = element; e && e.nodeType === 1; e = e.parentElement) {
      const colour = rgba(getComputedStyle(e).backgroundColor);
      if (colour[3] > 0) layers.push([colour, opacity(e)]);
      if (colour[3] === 1 && opacity(e) === 1) break;
    }
    let result = rgba(getComputedStyle(document.documentElement).backgroundColor);
    if (result[3] === 0) result = [255, 255, 255, 1];
    for (const [colour, alpha] of layers.reverse()) result = over([...colour.slice(0, 3), colour[3] * alpha], result);
    return result;
  }
  // A foreground colour as it shows over `behind`, faded by the element's opacity.
  const shown = (css, element, behind) => {
    const colour = rgba(css);
    return over([...colour.slice(0, 3), colour[3] * opacity(element)], behind);
  };

  const found = [];
  function pair(what, element, fg, bg) {
    found.push({ what, cell: element.dataset.cell ?? element.dataset.block ?? element.dataset.mark ?? "",
      ratio: Math.round(ratio(fg, bg) * 100) / 100, fg: hex(fg), bg: hex(bg) });
  }

  const board = document.getElementById("board");
  for (const cell of board.querySelectorAll(".cell")) {
    const style = getComputedStyle(cell);
    const surface = backdrop(cell.parentElement);
    const fill = backdrop(cell);
    // A cell is seen by its edge or its fill against what surrounds it: the better of the two.
    const edgeWidth = parseFloat(style.borderTopWidth);
    const edge = edgeWidth > 0 && style.borderTopStyle !== "none"
      ? shown(style.borderTopColor, cell, surface) : fill;
    const boundary = ratio(edge, surface) >= ratio(fill, surface) ? edge : fill;
    pair("cell", cell, boundary, surface);
    // Its mark's strokes against its fill (a halo, in the fill's colour, is not a stroke).
    for (const stroke of cell.querySelectorAll("svg.mark > :not(.halo)")) {
      pair("mark", cell, shown(getComputedStyle(stroke).stroke, stroke, fill), fill);
    }
    if (cell.classList.contains("last")) {
      const dot = getComputedStyle(cell, "::after");
      if (dot.display !== "none" && dot.content !== "none") {
        pair("last move", cell, shown(dot.backgroundColor, cell, fill), fill);
      }
    }
  }
  // Ultimate: each small board's frame against the page, its big mark against the small board.
  for (const block of board.querySelectorAll(".block")) {
    const style = getComputedStyle(block);
    const page = backdrop(board);
    if (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) {
      pair("small board", block, shown(style.outlineColor, block, page), page);
    }
    const fill = backdrop(block);
    for (const stroke of block.querySelectorAll(":scope > svg.big > :not(.halo)")) {
      pair("big mark", block, shown(getComputedStyle(stroke).stroke, stroke, fill), fill);
    }
  }
  // The winning line against the cells it crosses and the page between them.
  for (const line of board.querySelectorAll("svg.lines line")) {
    const colour = getComputedStyle(line).stroke;
    const behind = [backdrop(board), ...[...board.querySelectorAll(".cell.win")].map(backdrop)];
    const blocks = [...board.querySelectorAll(".block.win")].map(backdrop);
    for (const bg of behind.concat(blocks)) pair("winning line", line, shown(colour, line, bg), bg);
  }
  // Whose turn: the chip's frame against the page.
  for (const chip of document.querySelectorAll("#players .player.turn")) {
    const style = getComputedStyle(chip);
    const page = backdrop(chip.parentElement);
    pair("turn frame", chip, shown(style.borderTopColor, chip, page), page);
  }
  return found;
})()
