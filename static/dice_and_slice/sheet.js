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
  // A tap kept on the phone while offline (static/app.js): what comes next (the other die, where a
  // pattern may go) is the rules' answer, so the step's controls rest, saying what was kept.
  const KEPT = {roll: function (b) { return "the roll, die A " + b.get("face_A") + " and die B " + b.get("face_B"); },
                choose: function (b) { return "your choice of die " + b.get("die"); },
                place: function () { return "your pattern where it is shown"; },
                bonus: function () { return "your bonus dot"; },
                skip_bonus: function () { return "skipping the bonus dot"; }};
  document.addEventListener("companion:kept", function (ev) {
    const what = KEPT[ev.detail.body.get("action")];
    const sheet = document.getElementById("sheet");
    if (!what || !sheet || !/\/entries$/.test(ev.detail.url)) return;
    sheet.querySelectorAll("#ds-roll, .ds-choose, #ds-nav, .ds-confirm").forEach(function (f) {
      f.querySelectorAll("button, input").forEach(function (el) { el.disabled = true; });
    });
    const p = document.createElement("p");
    p.className = "banner kept-mark";
    p.dataset.testid = "kept";
    p.textContent = "Kept on this phone: " + what(ev.detail.body) + ". It is sent, and the next step shown, " +
                    "once the connection is back.";
    sheet.querySelector("[data-testid=turn]").replaceChildren(p);
  });
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
