// Score pad, offline (loaded after static/offline.js once the page is up).
(function () {
  "use strict";
  const t = window.companionText;
  // A score kept on the phone while offline (static/app.js) shows at once in the pad, marked as kept,
  // and the entry moves on to the next round as after an entry. Enter stays off until a number is
  // typed again, so a second tap on it is never silently another round with the same score.
  function mySeat() {
    const found = location.pathname.match(/\/s\/(\d+)$/);
    return found ? Number(found[1]) : null;
  }
  function grid() { return document.querySelector('#pad-grid table'); }
  function rowFor(table, round) {
    const cell = table.querySelector('[data-testid$="cell-' + round + '-0"]');
    if (cell) return cell.closest("tr");
    const columns = table.querySelectorAll("thead th").length - 1;
    const tr = document.createElement("tr");
    tr.className = "open";
    const head = document.createElement("th");
    head.scope = "row";
    head.textContent = String(round);
    tr.append(head);
    for (let i = 0; i < columns; i++) {
      const td = document.createElement("td");
      td.dataset.testid = "cell-" + round + "-" + i;
      td.textContent = "…";
      tr.append(td);
    }
    table.querySelectorAll("tbody td.empty").forEach((td) => td.closest("tr").remove());
    table.querySelector("tbody").append(tr);
    return tr;
  }
  function markKept(round, points) {
    const table = grid();
    const seat = mySeat();
    if (!table || seat === null) return;
    const cell = rowFor(table, round).querySelector('[data-testid$="cell-' + round + '-' + seat + '"]');
    if (!cell) return;
    const mark = document.createElement("span");
    mark.className = "kept-mark";
    mark.title = t("kept on this phone until the connection is back");
    mark.textContent = points;
    const said = document.createElement("span");
    said.className = "sr-only";
    said.textContent = " " + t("(kept on this phone, not sent yet)");
    cell.replaceChildren(mark, said);
    cell.dataset.kept = "yes";
  }
  function keptLine(text) {
    let p = document.getElementById("pad-kept");
    if (!p) {
      p = document.createElement("p");
      p.id = "pad-kept";
      p.className = "small-print";
      p.dataset.testid = "kept";
      document.getElementById("entry-input").after(p);
    }
    p.textContent = text;
  }
  function moveOn(label, round, points) {
    const rounds = Number(label.dataset.rounds) || null;
    const players = document.querySelectorAll("#pad-grid thead th").length - 1;
    keptLine(t("Kept on this phone: {points} for round {round}. It is sent once the connection is back.", {points: points, round: round}));
    if (players > 1 || (rounds && round >= rounds)) {
      document.getElementById("entry-input").hidden = true;  // the next round waits for the others (or the game is over)
      return;
    }
    label.dataset.round = String(round + 1);
    label.textContent = rounds ? t("Round {round} of {rounds}: your score", {round: round + 1, rounds: rounds})
      : t("Round {round}: your score", {round: round + 1});
  }
  document.addEventListener("companion:kept", (evt) => {
    const body = evt.detail.body;
    const label = document.querySelector("label.entry-label[data-round]");
    const input = document.getElementById("points");
    if (!label || !input || !/\/entries$/.test(evt.detail.url) || body.get("action") || !body.get("points")) return;
    const round = Number(label.dataset.round);
    markKept(round, body.get("points"));
    moveOn(label, round, body.get("points"));
    input.value = "";
    document.getElementById("entry-after").replaceChildren();
    document.querySelector('[data-testid="enter-score"]').disabled = true;
  });
  document.addEventListener("input", (evt) => {
    if (evt.target.id !== "points") return;
    const enter = document.querySelector('[data-testid="enter-score"]');
    if (enter) enter.disabled = false;
  });
})();
