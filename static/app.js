// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  // Keep the screen on while a game is open, so a sheet does not go dark between rolls.
  let lock = null;
  async function keepAwake() {
    if (!("wakeLock" in navigator) || document.body.dataset.wakeLock !== "on") return;
    if (document.visibilityState !== "visible" || lock) return;
    try {
      lock = await navigator.wakeLock.request("screen");
      document.body.dataset.wakeLockHeld = "yes";
      lock.addEventListener("release", () => { lock = null; document.body.dataset.wakeLockHeld = "no"; });
    } catch (e) { lock = null; /* refused (battery saver, no user gesture yet): try again on the next tap */ }
  }
  document.addEventListener("visibilitychange", keepAwake);
  document.addEventListener("click", keepAwake);
  document.addEventListener("DOMContentLoaded", keepAwake);
})();

// A tap that could not be saved must never fail silently: say why, near the top of the screen.
(function () {
  "use strict";
  function notice(text) {
    let box = document.getElementById("notice");
    if (!box) {
      box = document.createElement("p");
      box.id = "notice";
      box.className = "notice error";
      box.setAttribute("role", "alert");
      document.body.prepend(box);
    }
    box.textContent = text;
    box.hidden = false;
    clearTimeout(box._timer);
    box._timer = setTimeout(() => { box.hidden = true; }, 8000);
  }
  function reasonFrom(xhr) {
    try {
      const doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
      const said = doc.querySelector(".error");
      if (said && said.textContent.trim()) return said.textContent.trim();
    } catch (e) { /* not HTML: fall through */ }
    return null;
  }
  document.addEventListener("htmx:responseError", (evt) => {
    const xhr = evt.detail.xhr;
    if (evt.detail.elt && evt.detail.elt.id === "poller") return;  // a poll retries by itself
    notice("Not saved: " + (reasonFrom(xhr) || "the server answered " + xhr.status + ". Tap again."));
  });
  document.addEventListener("htmx:sendError", (evt) => {
    if (evt.detail.elt && evt.detail.elt.id === "poller") return;
    notice("Not saved: no connection. Tap again when the phone is back online.");
  });
})();
