// The offline part of every page, loaded by static/app.js once the page is up (so a sheet's first load
// stays small): the status line of the taps kept on the phone, the look of a kept tap, and the copy of
// the sheet that a reload opens without a connection. The game's own offline script comes after this
// one in the same bundle and draws each kept tap on its sheet (the "companion:kept" event).
(function () {
  "use strict";
  const t = window.companionText;
  const RETRY_MS = 3000;

  // ---- the look of what is kept: a few rules, set through the CSS object model (no inline <style>) ----
  const KEPT_LOOK = [
    ".kept-mark { outline: 2px dashed var(--warn); outline-offset: 1px; border-radius: 3px; }",
    "button.kept-mark:disabled { opacity: 1; }",
    "span.kept-mark { padding: 0 3px; }",
    ".tap-queue .offline { border-left: 4px solid var(--warn); }",
  ];
  if (document.adoptedStyleSheets && window.CSSStyleSheet) {
    const look = new CSSStyleSheet();
    KEPT_LOOK.forEach((rule) => look.insertRule(rule, look.cssRules.length));
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, look];
  }

  // ---- a polite status line above the sheet: the connection, what waits, what the rules refused ----
  let queue = {taps: [], held: false, refused: null};
  function region() {
    let box = document.getElementById("tap-queue");
    if (!box) {
      box = Object.assign(document.createElement("div"), {id: "tap-queue", className: "tap-queue"});
      box.setAttribute("role", "status");
      box.dataset.testid = "tap-queue";
      (document.querySelector("main") || document.body).prepend(box);
    }
    return box;
  }
  function line(text, testid, className) {
    const p = document.createElement("p");
    p.textContent = text;
    p.dataset.testid = testid;
    if (className) p.className = className;
    return p;
  }
  function button(text, action) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "secondary";
    b.textContent = text;
    b.dataset.tapQueue = action;  // static/app.js does what it says
    b.dataset.testid = "taps-" + action;
    return b;
  }

  function offlineCopy() { return document.documentElement.dataset.offlineCopy; }
  function offlineText() {
    const copy = offlineCopy();
    const when = copy && new Date(copy).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
    return when ? t("No connection: this is the sheet as this phone last saw it, at {when}. Taps are kept on this phone and sent once the connection is back.", {when: when})
      : t("No connection. Taps are kept on this phone and sent once the connection is back.");
  }
  function queueLines(q) {
    const parts = [];
    if (q.refused) parts.push(line(t("Not saved when it was sent: {reason}", {reason: q.refused}), "tap-refused", "error"));
    const n = q.taps.length;
    if (q.held && n) {
      parts.push(line(n === 1 ? t("1 tap after it is held back.") : t("{n} taps after it are held back.", {n: n}), "taps-held"),
                 button(n === 1 ? t("Send it") : t("Send them"), "send"), button(n === 1 ? t("Drop it") : t("Drop them"), "drop"));
    } else if (n) {
      parts.push(line(n === 1 ? t("1 tap waiting for the connection") : t("{n} taps waiting for the connection", {n: n}), "taps-waiting", "banner"));
    } else if (q.refused) {
      parts.push(button(t("OK"), "dismiss"));
    }
    return parts;
  }
  function show(q, previewOff) {
    queue = q;
    const box = document.getElementById("tap-queue");
    const offline = !navigator.onLine || Boolean(offlineCopy());  // a copy: the server did not answer
    if (!box && !q.taps.length && !q.refused && !offline) return;
    const parts = queueLines(q);
    if (offline) parts.unshift(line(offlineText(), "offline", "banner offline"));
    if (previewOff) {
      parts.push(line(t("The preview is unavailable until the connection is back."), "preview-offline", "small-print"));
    }
    (box || region()).replaceChildren(...parts);
  }
  document.addEventListener("companion:queue", (evt) => show(evt.detail.queue, evt.detail.previewOff));
  // An undo kept on the phone: it takes back the last entry, the kept ones included, once it is sent.
  document.addEventListener("companion:kept", (evt) => {
    const undo = /\/undo$/.test(evt.detail.url) && document.querySelector("#undo-box button");
    if (!undo) return;
    undo.disabled = true;
    undo.classList.add("kept-mark");
    undo.textContent = t("Undo kept: sent once the connection is back");
  });

  // ---- a sheet that opens without a connection ----
  // The service worker (static/sw.js; only where the browser allows one: https, or the server's own
  // machine, not a plain-http LAN address) answers from a cache when the network does not. What it
  // serves for a sheet is the copy made here: the page as the player last saw it, once it shows only
  // what the server drew (nothing waiting, no request out), with the files it loads.
  const COPIES = "companion-offline-v1";  // static/sw.js reads the same cache
  const SHEET_PAGE = /\/t\/[^/]+\/s\/\d+$/;
  let copyTimer = null;
  function keepCopySoon() {
    clearTimeout(copyTimer);
    copyTimer = setTimeout(keepCopy, 300);
  }
  function pageCopy() {
    const page = document.documentElement.cloneNode(true);
    page.querySelectorAll("#tap-queue, #notice, #offline-js").forEach((el) => el.remove());
    page.querySelectorAll("#announce").forEach((el) => { el.textContent = ""; });
    page.dataset.offlineCopy = new Date().toISOString();
    return new Response("<!doctype html>\n" + page.outerHTML, {headers: {"Content-Type": "text/html; charset=utf-8"}});
  }
  const MOST_SHEETS = 8;  // copies kept: the sheets this phone opened last
  async function keepFiles(cache) {
    const files = document.querySelectorAll("script[src], link[rel=stylesheet], link[rel=manifest]");
    const wanted = Array.from(files, (el) => new URL(el.src || el.href));
    for (const url of wanted) {
      if (!(await cache.match(url.href))) await cache.add(url.href);
    }
    // an older version of the same file (before the server was updated) is no longer needed
    for (const request of await cache.keys()) {
      const url = new URL(request.url);
      if (wanted.some((w) => w.pathname === url.pathname && w.search !== url.search)) await cache.delete(request);
    }
  }
  async function forgetOldSheets(cache) {
    const sheets = (await cache.keys()).filter((request) => SHEET_PAGE.test(new URL(request.url).pathname));
    for (const request of sheets.slice(0, Math.max(sheets.length - MOST_SHEETS, 0))) await cache.delete(request);
  }
  async function keepCopy() {
    if (document.querySelector(".htmx-request")) {
      keepCopySoon();  // a refresh or a tap is under way: once it is drawn
      return;
    }
    if (!navigator.onLine || queue.taps.length || offlineCopy()) return;
    try {
      const cache = await caches.open(COPIES);
      await cache.delete(location.pathname);  // put last: the oldest copies are the first ones listed
      await cache.put(location.pathname, pageCopy());
      await keepFiles(cache);
      await forgetOldSheets(cache);
    } catch (e) { /* no room, or the connection went: the copy made before stays */ }
  }
  let asking = false;
  async function leaveCopy() {
    // A copy gives way to the sheet itself as soon as the server answers (the reload keeps the taps).
    if (!offlineCopy() || !navigator.onLine || asking) return;
    asking = true;
    try {
      const resp = await fetch(location.pathname, {credentials: "same-origin", cache: "no-store"});
      if (resp.ok) {
        location.reload();
        return;
      }
    } catch (e) { /* still no answer */ } finally {
      asking = false;
    }
    setTimeout(leaveCopy, RETRY_MS);
  }
  function startCopies() {
    const me = document.getElementById("offline-js");
    if (!me || !("serviceWorker" in navigator) || !window.caches) return;
    // the worker sits at the top of the site (its scope covers every sheet): /sw.js beside /static/
    navigator.serviceWorker.register(new URL("../../sw.js", me.src).pathname)
      .catch(() => { /* refused: taps are still kept on the phone */ });
    if (!SHEET_PAGE.test(location.pathname)) return;
    keepCopySoon();
    document.addEventListener("htmx:afterSettle", keepCopySoon);
    document.addEventListener("companion:sent", keepCopySoon);
    window.addEventListener("online", leaveCopy);
    leaveCopy();
  }
  startCopies();
})();
