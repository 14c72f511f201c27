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
