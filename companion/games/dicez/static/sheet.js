// DiceZ sheet: the die slots fill on the phone. A face fills the slot marked as next (the first empty
// one, or the one tapped to change it); the preview then asks the server only for what the boxes
// would score. Without this file every tap is a plain form post and the server does the same.
(function () {
  "use strict";
  const t = window.companionText;
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
      slot.classList.toggle("read", Boolean(v) && slot.dataset.read !== undefined);
      slot.setAttribute("aria-label", !v ? t("Die {number}: not entered", {number: i + 1})
        : slot.dataset.read !== undefined ? t("Die {number}: {value} (read from the photo: tap to change)", {number: i + 1, value: v})
        : t("Die {number}: {value}", {number: i + 1, value: v}));
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
      f.querySelectorAll("[data-slot]").forEach((slot) => { delete slot.dataset.read; });
      return 0;
    }
    if (button.dataset.slot !== undefined) return Number(button.dataset.slot);
    const target = cursor(f);
    if (target === null) return null;  // all five are in: tap a slot to change one
    valueInput(f, target).value = button.dataset.face;
    delete f.querySelector('[data-slot="' + target + '"]').dataset.read;  // the player's own now
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

  // ---- reading the dice from a photo (POST /api/dice/read); nothing is recorded until a box is tapped ----
  const PHOTO_SIDE = 1024;  // the phone scales the photo down to this before sending

  function say(f, text) {
    const status = f.querySelector("[data-dice-photo-status]");
    status.textContent = text;
    status.hidden = !text;
  }
  function showCamera() {
    const f = form();
    const camera = f && f.querySelector("[data-dice-camera]");
    if (!camera || !window.fetch) return;
    camera.hidden = false;
    camera.parentElement.classList.add("with-camera");
    camera.classList.toggle("offline", !navigator.onLine);
    camera.title = navigator.onLine ? t("Read the dice from a photo") : t("Reading dice from a photo needs the server");
  }
  function scaledPhoto(file) {
    return createImageBitmap(file, {imageOrientation: "from-image"}).then((bitmap) => {
      const scale = Math.min(1, PHOTO_SIDE / Math.max(bitmap.width, bitmap.height));
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * scale);
      canvas.height = Math.round(bitmap.height * scale);
      canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      // the page may show only its own and data: images (the CSP): the photo is shown as a data URL
      const shown = canvas.toDataURL("image/jpeg", 0.85);
      return new Promise((done) => canvas.toBlob((blob) => done({blob: blob, shown: shown}), "image/jpeg", 0.85));
    });
  }
  function foundWords(count) {
    if (count === 0) return t("No dice found in the photo. Tap the faces, or try again closer and in good light.");
    if (count === 1) return t("Found 1 die, tap the other 4. Check them: tap a die to change it.");
    if (count === 4) return t("Found 4 dice, tap the fifth. Check them: tap a die to change it.");
    if (count < 5) return t("Found {count} dice, tap the other {left}. Check them: tap a die to change it.", {count: count, left: 5 - count});
    if (count > 5) return t("Found {count} dice; the five clearest are in. Check them: tap a die to change it.", {count: count});
    return t("Read 5 dice. Check them: tap a die to change it, then tap a box.");
  }
  function fillSlots(f, dice) {
    const chosen = dice.slice(0, 5);
    for (let i = 0; i < 5; i++) {
      valueInput(f, i).value = i < chosen.length ? String(chosen[i].face) : "";
      const slot = f.querySelector('[data-slot="' + i + '"]');
      if (i < chosen.length) slot.dataset.read = "1"; else delete slot.dataset.read;
    }
    draw(f, chosen.length < 5 ? chosen.length : null);
    f.querySelector("fieldset").dispatchEvent(new Event("change", {bubbles: true}));
  }
  function outline(f, shown, dice) {
    const view = f.querySelector("[data-dice-photo-view]");
    const img = document.createElement("img");
    img.src = shown;
    img.alt = t("Your photo, with the dice read outlined and numbered as the slots");
    const boxes = dice.map((die, i) => {
      const box = document.createElement("div");
      box.className = "die-box" + (i < 5 ? "" : " extra");
      box.style.left = die.box[0] * 100 + "%";
      box.style.top = die.box[1] * 100 + "%";
      box.style.width = die.box[2] * 100 + "%";
      box.style.height = die.box[3] * 100 + "%";
      if (i < 5) {
        const number = document.createElement("span");
        number.textContent = String(i + 1);
        box.append(number);
      }
      return box;
    });
    view.replaceChildren(img, ...boxes);
    view.hidden = false;
  }
  function readPhoto(f, input) {
    const file = input.files && input.files[0];
    input.value = "";  // the same photo can be picked again
    if (!file) return;
    if (!navigator.onLine) { say(f, t("Reading dice from a photo needs the server: tap the faces for now.")); return; }
    say(f, t("Reading the dice…"));
    let sent;
    scaledPhoto(file).then((photo) => {
      sent = photo.shown;
      const body = new FormData();
      body.append("image", photo.blob, "dice.jpg");
      return fetch(input.dataset.readUrl, {method: "POST", body: body, credentials: "same-origin"});
    }).then((response) => response.json().then((answer) => {
      if (!response.ok) throw new Error(answer.error || t("The photo could not be read."));
      outline(f, sent, answer.dice);
      fillSlots(f, answer.dice);
      say(f, foundWords(answer.dice.length));
    })).catch((problem) => {
      say(f, problem instanceof TypeError ? t("Reading dice from a photo needs the server: tap the faces for now.")
        : problem.message);
    });
  }

  document.addEventListener("change", (evt) => {
    if (!evt.target.matches || !evt.target.matches("[data-dice-photo]")) return;
    evt.stopPropagation();  // not a change of the dice: the preview waits for the slots to fill
    readPhoto(form(), evt.target);
  }, true);
  document.addEventListener("click", (evt) => {
    const camera = evt.target.closest && evt.target.closest("[data-dice-camera]");
    if (!camera || navigator.onLine) return;
    evt.preventDefault();
    say(form(), t("Reading dice from a photo needs the server: tap the faces for now."));
  }, true);
  document.addEventListener("click", (evt) => {
    const view = evt.target.closest && evt.target.closest("[data-dice-photo-view]");
    if (view) view.classList.toggle("large");
  });
  window.addEventListener("online", showCamera);
  window.addEventListener("offline", showCamera);
  document.addEventListener("htmx:afterSwap", showCamera);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", showCamera); else showCamera();

  // After an entry, an undo or a refusal the whole sheet is new: back to the top, ready for the dice.
  document.addEventListener("htmx:afterSwap", (evt) => {
    const sheet = document.getElementById("sheet");
    if (!sheet || !(evt.detail.elt === sheet || evt.target === sheet)) return;
    window.scrollTo(0, 0);
    const first = sheet.querySelector("[data-slot].next") ? sheet.querySelector('[data-face="1"]') : null;
    (first || sheet.querySelector("h1")).focus({preventScroll: true});
  });
})();
