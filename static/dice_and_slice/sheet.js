// Dice and Slice: progressive enhancement only; every control is a plain link or form without it.
(function () {
  "use strict";
  // Tapping a dot of the sheet: fetch only the #sheet fragment instead of the whole page.
  document.addEventListener("click", function (ev) {
    const link = ev.target.closest && ev.target.closest("a.ds-hit");
    if (!link || !window.htmx || ev.ctrlKey || ev.metaKey) return;
    ev.preventDefault();
    const url = new URL(link.getAttribute("href"), location.href);
    url.pathname = url.pathname.replace(/\/$/, "") + "/sheet";
    htmx.ajax("GET", url.pathname + url.search, {target: "#sheet", swap: "outerHTML", source: link});
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
