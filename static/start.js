// The start page: as many name fields as the chosen game needs (its fewest players), "Add a player"
// for more up to its most, and only that game's options. Without this file every field shows.
(function () {
  "use strict";
  function setUp(form) {
    const rows = Array.from(form.querySelectorAll("[data-seat-field]"));
    const add = form.querySelector("[data-add-player]");
    const input = (row) => row.querySelector("input");
    let shown = 0;
    function chosen() { return form.querySelector('input[name="game"]:checked'); }
    function show(count) {
      const game = chosen();
      const most = game ? Number(game.dataset.max) : rows.length;
      shown = Math.max(1, Math.min(count, most, rows.length));
      rows.forEach((row, i) => {
        row.hidden = i >= shown;
        input(row).disabled = i >= shown;  // a hidden name is not sent
      });
      add.hidden = shown >= most;
      form.querySelectorAll("details[data-game]").forEach((d) => { d.hidden = !game || d.dataset.game !== game.value; });
    }
    function typed() {  // fields with a name in them stay open (a refused form comes back filled)
      let last = 0;
      rows.forEach((row, i) => { if (input(row).value.trim()) last = i + 1; });
      return last;
    }
    function fit() {
      const game = chosen();
      show(Math.max(game ? Number(game.dataset.min) : 1, typed()));
    }
    form.addEventListener("change", (evt) => { if (evt.target.name === "game") fit(); });
    add.addEventListener("click", () => {
      show(shown + 1);
      input(rows[shown - 1]).focus();
    });
    fit();
  }
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("form[data-seat-fields]").forEach(setUp);
  });
})();
