// Pizza Theory, offline (loaded after static/offline.js once the page is up). A tap kept on the phone
// (static/app.js) marks the space or line tapped as kept. A topping is one per turn, so the board
// takes no second one until the server has answered; a cut may still be changed, as online.
(function () {
  "use strict";
  const t = window.companionText;
  function keptNote(text) {
    const status = document.getElementById("pt-status");
    if (!status) return;
    const p = document.createElement("p");
    p.className = "banner";
    p.dataset.testid = "kept";
    p.textContent = text;
    status.replaceChildren(p);
  }
  function keptTopping(body) {
    const kind = body.get("kind");
    const input = document.querySelector('.pt-form input[name="kind"][value="' + kind + '"]');
    if (!input) return;
    input.form.querySelectorAll("button").forEach(function (b) {
      b.disabled = true;
      if (b.value === body.get("space")) b.classList.add("pending", "kept-mark");
    });
    keptNote(kind === "neutral" ? t("Kept on this phone: the green topping is sent once the connection is back.")
             : t("Kept on this phone: your topping is sent once the connection is back."));
  }
  function keptCut(body) {
    document.querySelectorAll('.pt-lines-form button[name="line"]').forEach(function (b) {
      const chosen = b.value === body.get("line");
      b.classList.toggle("kept-mark", chosen);
      b.setAttribute("aria-pressed", chosen ? "true" : "false");
    });
    keptNote(t("Kept on this phone: your cut, line {line}, is sent once the connection is back. You may still change it.", {line: body.get("line")}));
  }
  document.addEventListener("companion:kept", function (ev) {
    const body = ev.detail.body;
    if (!/\/entries$/.test(ev.detail.url)) return;
    if (body.get("kind") === "cut") keptCut(body);
    else keptTopping(body);
  });
})();
