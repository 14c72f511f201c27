// Dice and Slice, offline (loaded after static/offline.js once the page is up). A tap kept on the phone
// (static/app.js): what comes next (the other die, where a pattern may go) is the rules' answer, so
// the step's controls rest, saying what was kept.
(function () {
  "use strict";
  const t = window.companionText;
  const KEPT = {roll: function (b) { return t("the roll, die A {a} and die B {b}", {a: b.get("face_A"), b: b.get("face_B")}); },
                choose: function (b) { return t("your choice of die {die}", {die: b.get("die")}); },
                place: function () { return t("your pattern where it is shown"); },
                bonus: function () { return t("your bonus dot"); },
                skip_bonus: function () { return t("skipping the bonus dot"); }};
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
    p.textContent = t("Kept on this phone: {what}. It is sent, and the next step shown, once the connection is back.", {what: what(ev.detail.body)});
    sheet.querySelector("[data-testid=turn]").replaceChildren(p);
  });
})();
