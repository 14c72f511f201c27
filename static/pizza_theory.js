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
  document.addEventListener("change", function (ev) {
    const box = ev.target;
    if (!box.matches || !box.matches("input[data-tick]")) return;
    try { if (box.checked) localStorage.setItem(key(box), "1"); else localStorage.removeItem(key(box)); } catch (e) { /* */ }
  });
  // An open <details> stays open when the fragment around it is refreshed.
  const open = new Set();
  document.addEventListener("toggle", function (ev) {
    const d = ev.target;
    if (!d.matches || !d.matches("details[data-testid]")) return;
    if (d.open) open.add(d.dataset.testid); else open.delete(d.dataset.testid);
  }, true);
  document.addEventListener("htmx:afterSettle", function (ev) {
    restore(ev.target);
    open.forEach(function (id) { const d = document.querySelector('details[data-testid="' + id + '"]'); if (d) d.open = true; });
  });
  // Show at once which space was tapped while the server checks it.
  document.addEventListener("click", function (ev) {
    const b = ev.target.closest && ev.target.closest("button.pt-space");
    if (b) b.classList.add("pending");
  });
  document.addEventListener("DOMContentLoaded", function () { restore(document); });
})();
