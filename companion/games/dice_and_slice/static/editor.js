// Dice and Slice edition editor: taps instead of typing (a face's shape, a topping on a square). Without
// this file every face is ticked dot by dot, every square is a text field for a topping's letter and
// every count a number field, and the form posts as it is.
(function () {
  "use strict";
  const form = document.querySelector("form.ds-edit-form");
  if (!form) return;
  const colours = (form.dataset.colours || "").split(" ");
  let brush = null; // the letter a tap paints ("" erases)

  function rows() {
    return Array.from(form.querySelectorAll(".ds-top-row")).map(function (row) {
      const j = Number(row.dataset.j);
      return {j: j, letter: row.querySelector(".ds-letter"), name: row.querySelector('input[name$="_name"]'),
              colour: colours[j % colours.length]};
    });
  }
  function toppings() {
    return rows().filter(function (t) { return t.name.value.trim() && t.letter.value.trim(); });
  }
  function colourOf(letter) {
    const t = toppings().find(function (t) { return t.letter.value.trim().toUpperCase() === letter; });
    return t ? t.colour : "#777";
  }
  function paint(square) {
    const mark = square.value.trim().toUpperCase();
    square.classList.toggle("on", !!mark);
    if (mark) square.style.setProperty("--tc", colourOf(mark)); else square.style.removeProperty("--tc");
  }
  // a new topping gets a free letter of its name (the owner may change it)
  function suggestLetter(t) {
    if (t.letter.value.trim() && !t.letter.dataset.suggested) return;
    const used = new Set(rows().filter(function (o) { return o !== t; })
      .map(function (o) { return o.letter.value.trim().toUpperCase(); }));
    const choices = (t.name.value + "ABCDEFGHIJKLMNOPQRSTUVWXYZ").toUpperCase().replace(/[^A-Z]/g, "");
    t.letter.value = t.name.value.trim() ? (Array.from(choices).find(function (c) { return !used.has(c); }) || "") : "";
    t.letter.dataset.suggested = "1";
  }
  function brushButton(label, letter, colour) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "ds-brush" + (letter === brush ? " chosen" : "");
    b.dataset.letter = letter;
    b.setAttribute("aria-pressed", letter === brush ? "true" : "false");
    if (colour) b.style.setProperty("--tc", colour);
    b.innerHTML = letter ? "<b></b> " : "";
    if (letter) b.querySelector("b").textContent = letter;
    b.appendChild(document.createTextNode(label));
    return b;
  }
  function drawBrushes() {
    const tops = toppings();
    if (brush === null || (brush && !tops.some(function (t) { return t.letter.value.trim().toUpperCase() === brush; }))) {
      brush = tops.length ? tops[0].letter.value.trim().toUpperCase() : "";
    }
    form.querySelectorAll(".ds-brushes").forEach(function (box) {
      box.hidden = false;
      box.replaceChildren();
      tops.forEach(function (t) {
        box.appendChild(brushButton(t.name.value.trim(), t.letter.value.trim().toUpperCase(), t.colour));
      });
      box.appendChild(brushButton("Eraser", "", null));
    });
    form.querySelectorAll(".ds-count").forEach(function (c) {
      if (c.classList.contains("pts")) return;
      const t = rows()[Number(c.dataset.j)];
      const named = t && t.name.value.trim();
      c.hidden = !named;
      c.querySelector(".ds-count-name").textContent = named || "";
    });
    form.querySelectorAll(".ds-sq").forEach(paint);
  }

  form.classList.add("js");
  form.querySelectorAll(".ds-sq").forEach(function (sq) {
    sq.readOnly = true;
    sq.setAttribute("inputmode", "none");
  });
  // a face's dots as "xy" words, e.g. "00 11 22", the way a shape button names its own
  function dotsOf(face) {
    return Array.from(face.querySelectorAll(".ds-face-dots input:checked")).map(function (box) {
      const m = box.name.match(/_(\d)_(\d)$/);
      return m[1] + m[2];
    }).sort().join(" ");
  }
  function markShapes(face) {
    const dots = dotsOf(face);
    let known = false;
    face.querySelectorAll(".ds-shape").forEach(function (b) {
      b.setAttribute("aria-pressed", b.dataset.dots === dots ? "true" : "false");
      known = known || b.dataset.dots === dots;
    });
    face.classList.toggle("odd", !known); // a face no shape draws shows its dots
  }
  function drawShape(button) {
    const face = button.closest(".ds-face-edit");
    const wanted = new Set(button.dataset.dots.split(" "));
    face.querySelectorAll(".ds-face-dots input").forEach(function (box) {
      const m = box.name.match(/_(\d)_(\d)$/);
      box.checked = wanted.has(m[1] + m[2]);
    });
    markShapes(face);
  }
  form.querySelectorAll(".ds-face-edit").forEach(function (face) {
    face.querySelector(".ds-shapes").hidden = false;
    markShapes(face);
  });
  // "each side whole" is this phone's choice, kept for the next edition it edits
  const whole = form.querySelector(".ds-whole-pick");
  const WHOLE_KEY = "ds-editor-whole-sheet";
  try { if (whole && localStorage.getItem(WHOLE_KEY) === "1") whole.checked = true; } catch (e) { /* private mode */ }
  form.addEventListener("change", function (ev) {
    if (ev.target === whole) {
      try { localStorage.setItem(WHOLE_KEY, whole.checked ? "1" : "0"); } catch (e) { /* private mode */ }
      return;
    }
    const face = ev.target.closest && ev.target.closest(".ds-face-edit");
    if (face) markShapes(face);
  });
  form.addEventListener("click", function (ev) {
    const shape = ev.target.closest(".ds-shape");
    if (shape) { drawShape(shape); return; }
    const byDots = ev.target.closest(".ds-by-dots");
    if (byDots) {
      const open = byDots.closest(".ds-face-edit").classList.toggle("by-dots");
      byDots.setAttribute("aria-expanded", open ? "true" : "false");
      return;
    }
    const b = ev.target.closest(".ds-brush");
    if (b) { brush = b.dataset.letter; drawBrushes(); return; }
    const sq = ev.target.closest(".ds-sq");
    if (sq) { sq.value = sq.value.trim().toUpperCase() === brush ? "" : brush; paint(sq); return; }
    const name = ev.target.closest(".ds-count-name");
    if (name) { // a tap on a topping's name counts one more of it (after 3, back to none)
      ev.preventDefault();
      const input = name.parentElement.querySelector("input");
      const n = (Number(input.value) || 0) + 1;
      input.value = n > 3 ? "" : String(n);
    }
  });
  form.addEventListener("keydown", function (ev) {
    const sq = ev.target.closest && ev.target.closest(".ds-sq");
    if (sq && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); sq.click(); }
  });
  form.addEventListener("input", function (ev) {
    const t = rows().find(function (r) { return r.name === ev.target || r.letter === ev.target; });
    if (!t) return;
    if (ev.target === t.name) suggestLetter(t); else delete t.letter.dataset.suggested;
    // the topping being named is the one the owner paints next
    if (t.name.value.trim() && t.letter.value.trim()) brush = t.letter.value.trim().toUpperCase();
    drawBrushes();
  });
  drawBrushes();
})();
