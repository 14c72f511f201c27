// Pizza Theory, progressive enhancement only: every form works without this file.
(function () {
  "use strict";
  // Ticks on the change checklists live in this browser only; keep them across live refreshes.
  function key(box) { return "pt-tick-" + box.dataset.tick; }
  function restore(root) {
    (root || document).querySelectorAll("input[data-tick]").forEach(function (box) {
      try { box.checked = localStorage.getItem(key(box)) === "1"; } catch (e) { /* storage off */ }
    });
  }
  // A reveal's section: open while the server says so (until the next round's cuts), folded as soon as
  // every change on it is ticked; what the player last did with a section (opening or closing it by its
  // summary) wins over both, across live refreshes, for that round's section.
  const wanted = {};
  function id(d) { return d.dataset.testid + "@" + (d.dataset.round || ""); }
  function allTicked(d) {
    const boxes = d.querySelectorAll("input[data-tick]");
    return boxes.length > 0 && Array.prototype.every.call(boxes, function (b) { return b.checked; });
  }
  function settle(root) {
    restore(root);
    document.querySelectorAll("details[data-testid]").forEach(function (d) {
      if (Object.prototype.hasOwnProperty.call(wanted, id(d))) d.open = wanted[id(d)];
      else if (d.dataset.fresh && allTicked(d)) d.open = false;
    });
  }
  document.addEventListener("change", function (ev) {
    const box = ev.target;
    if (!box.matches || !box.matches("input[data-tick]")) return;
    try { if (box.checked) localStorage.setItem(key(box), "1"); else localStorage.removeItem(key(box)); } catch (e) { /* */ }
    const d = box.closest("details[data-testid]");
    if (d && box.checked && allTicked(d)) { d.open = false; wanted[id(d)] = false; }
  });
  document.addEventListener("click", function (ev) {
    // a click (or Enter/Space) on a section's summary: remember what the player wants it to be
    const s = ev.target.closest && ev.target.closest("summary");
    const d = s && s.parentElement;
    if (d && d.matches("details[data-testid]")) wanted[id(d)] = !d.open;
    // show at once which space was tapped while the server checks it
    const b = ev.target.closest && ev.target.closest("button.pt-space");
    if (b) b.classList.add("pending");
  });
  document.addEventListener("htmx:afterSettle", function (ev) { settle(ev.target); });
  document.addEventListener("DOMContentLoaded", function () { settle(document); });
})();
