// DiceZ sheet: the die slots fill on the phone. A face fills the slot marked as next (the first empty
// one, or the one tapped to change it); the preview then asks the server only for what the boxes
// would score. Without this file every tap is a plain form post and the server does the same.
(function () {
  "use strict";
  const FACES = "⚀⚁⚂⚃⚄⚅";

  function form() { return document.getElementById("dice-form"); }
  function valueInput(f, i) { return f.querySelector('[data-die-value="' + i + '"]'); }
  function values(f) {
    const out = [];
    for (let i = 0; i < 5; i++) out.push(valueInput(f, i).value);
    return out;
  }
  function firstEmpty(dice) {
    const i = dice.indexOf("");
    return i < 0 ? null : i;
  }
  function draw(f, next) {
    f.querySelectorAll("[data-slot]").forEach((slot) => {
      const i = Number(slot.dataset.slot);
      const v = valueInput(f, i).value;
      slot.classList.toggle("empty", !v);
      slot.classList.toggle("next", i === next);
      slot.setAttribute("aria-pressed", i === next ? "true" : "false");
      slot.setAttribute("aria-label", "Die " + (i + 1) + ": " + (v || "not entered"));
      if (v) {
        const small = document.createElement("small");
        small.textContent = v;
        slot.replaceChildren(FACES[Number(v) - 1], small);
      } else {
        slot.replaceChildren();
      }
    });
    f.querySelector("[data-dice-cursor]").value = next === null ? "" : String(next);
  }
  function cursor(f) {
    const text = f.querySelector("[data-dice-cursor]").value;
    return text === "" ? firstEmpty(values(f)) : Number(text);
  }
  function tapped(f, button) {
    if (button.dataset.clear !== undefined) {
      for (let i = 0; i < 5; i++) valueInput(f, i).value = "";
      return 0;
    }
    if (button.dataset.slot !== undefined) return Number(button.dataset.slot);
    const target = cursor(f);
    if (target === null) return null;  // all five are in: tap a slot to change one
    valueInput(f, target).value = button.dataset.face;
    return firstEmpty(values(f));
  }

  document.addEventListener("click", (evt) => {
    const f = form();
    const button = evt.target.closest && evt.target.closest("[data-face], [data-slot], [data-clear]");
    if (!f || !button || !f.contains(button) || !window.htmx) return;
    evt.preventDefault();
    draw(f, tapped(f, button));
    // the fieldset asks for the preview on "change" (hx-trigger); hidden inputs fire none themselves
    button.closest("fieldset").dispatchEvent(new Event("change", {bubbles: true}));
  });

  // After an entry, an undo or a refusal the whole sheet is new: back to the top, ready for the dice.
  document.addEventListener("htmx:afterSwap", (evt) => {
    const sheet = document.getElementById("sheet");
    if (!sheet || !(evt.detail.elt === sheet || evt.target === sheet)) return;
    window.scrollTo(0, 0);
    const first = sheet.querySelector("[data-slot].next") ? sheet.querySelector('[data-face="1"]') : null;
    (first || sheet.querySelector("h1")).focus({preventScroll: true});
  });
})();
