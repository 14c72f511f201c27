// Dice and Slice, offline (loaded after static/offline.js once the page is up). A tap kept on the phone
// (static/app.js): what comes next (the other die, where a pattern may go) is the rules' answer, so
// the step's controls rest, saying what was kept.
(function () {
  "use strict";
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
})();
