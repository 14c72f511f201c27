// Dice and Slice: progressive enhancement only; every control is a plain link or form without it.
(function () {
  "use strict";
  // A tap on the sheet's picture jumps the ghost (or the bonus dot) to the dot nearest the tap:
  // only the #sheet fragment is fetched. Without JavaScript the arrow pad does the same, step by step.
  function dotAt(svg, ev) {
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const at = pt.matrixTransform(svg.getScreenCTM().inverse());
    const cell = Number(svg.dataset.cell) || 10;
    const clamp = (v, hi) => Math.min(Math.max(Math.round(v / cell), 0), hi);
    return [clamp(at.x, 12), clamp(at.y, 9)];
  }
  document.addEventListener("click", function (ev) {
    const svg = ev.target.closest && ev.target.closest("svg.ds-sheet[data-tap]");
    if (!svg || !window.htmx) return;
    const [x, y] = dotAt(svg, ev);
    const query = svg.dataset.tap === "place" ? "rot=" + svg.dataset.rot + "&tx=" + x + "&ty=" + y
                                             : "bx=" + x + "&by=" + y;
    htmx.ajax("GET", svg.dataset.url + "?" + query, {target: "#sheet", swap: "outerHTML", source: svg});
  });
  // Arrow keys and R move the ghost, as the pad's buttons do (not while typing in a field).
  const KEYS = {ArrowUp: "ds-up", ArrowDown: "ds-down", ArrowLeft: "ds-left", ArrowRight: "ds-right", r: "ds-rotate"};
  document.addEventListener("keydown", function (ev) {
    const id = KEYS[ev.key];
    const busy = ev.target.closest && ev.target.closest("input, textarea, select");
    if (!id || busy || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const button = document.getElementById(id);
    if (!button) return;
    ev.preventDefault();
    button.click();
  });
  // On a small phone the pad, stuck to the bottom of the screen, would cover the sheet's lowest rows:
  // while it is shown, scroll just far enough that the whole sheet sits above it, so every dot can
  // be tapped where it is seen.
  function clearOfPad() {
    const pad = document.querySelector("#sheet .ds-controls");
    const sheet = document.querySelector("#sheet .ds-sheet-wrap");
    if (!pad || !sheet) return;
    const covered = sheet.getBoundingClientRect().bottom - pad.getBoundingClientRect().top;
    if (covered > 0) window.scrollBy(0, Math.ceil(covered));
  }
  document.addEventListener("htmx:afterSettle", clearOfPad);
  window.addEventListener("load", clearOfPad);
  // Keep the keyboard focus on the same control after the sheet is re-rendered.
  let focused = null;
  document.addEventListener("htmx:beforeRequest", function () {
    const el = document.activeElement;
    focused = el && el.id ? el.id : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!focused) return;
    const el = document.getElementById(focused);
    if (el && !el.disabled) el.focus({preventScroll: true});
  });
})();
