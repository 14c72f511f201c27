// DiceZ, offline (loaded after static/offline.js once the page is up).
(function () {
  "use strict";
  const t = window.companionText;
  function form() { return document.getElementById("dice-form"); }
  // Offline no preview can come: the scores the boxes showed were for the dice before, so they go.
  function forgetPreview(f) {
    f.querySelectorAll("button.score:not(.kept-mark)").forEach((box) => {
      box.textContent = "–";
      box.classList.remove("zero");
      box.classList.add("pending");
      box.setAttribute("aria-label", t("Score in {box}", {box: box.dataset.label}));
    });
  }
  document.addEventListener("click", (evt) => {
    const f = form();
    const button = evt.target.closest && evt.target.closest("[data-face], [data-slot], [data-clear]");
    if (f && button && f.contains(button) && !navigator.onLine) forgetPreview(f);
  });
  // A roll kept (roll by roll): listed with the rolls as kept; the dice stay for the next roll, as
  // online, and the holds are for that roll to set.
  function keptRoll(f, body) {
    const rolls = f.querySelector('[data-testid="rolls"]');
    if (!rolls) return;
    const roll = document.createElement("span");
    roll.className = "roll kept-mark";
    roll.textContent = [0, 1, 2, 3, 4].map((i) => body.get("d" + i)).join(" ");
    rolls.append(" ", roll);
    rolls.firstChild.textContent = t("Roll {roll} of 3 recorded, the last kept on this phone.", {roll: rolls.querySelectorAll(".roll").length});
    f.querySelectorAll('.hold-row input[type="checkbox"]').forEach((hold) => { hold.checked = false; });
  }
  // A score kept on the phone (static/app.js): the sheet moves on as after an entry, the dice cleared
  // for the next turn (as the ✕ does); the box says it is kept and takes no second tap. What it scores
  // is the rules' to say, once the server has it.
  document.addEventListener("companion:kept", (evt) => {
    const f = form();
    const category = evt.detail.body.get("category");
    const clear = f && f.querySelector("[data-clear]");
    if (clear && evt.detail.body.get("action") === "roll") keptRoll(f, evt.detail.body);
    if (!clear || !category) return;
    const box = f.querySelector('button.score[value="' + CSS.escape(category) + '"]');
    if (box) {
      box.disabled = true;
      box.classList.add("kept-mark");
      box.textContent = t("kept");
      box.setAttribute("aria-label", t("{box}: kept on this phone until the connection is back", {box: box.dataset.label}));
      box.dataset.testid = "kept-" + category;
    }
    // (a page the server just drew after a reload has no dice yet: no preview asked for, to draw over the marks)
    if (!evt.detail.replay || !navigator.onLine) clear.click();
    forgetPreview(f);
    const first = f.querySelector('[data-face="1"]');
    if (first && !evt.detail.replay) first.focus({preventScroll: true});
  });
})();
