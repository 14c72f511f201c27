// Small progressive enhancements; every page works without this file.

// The reader's language: the page carries the translations of the scripts' messages (templates/base.html,
// companion/platform/i18n.py); t("... {name} ...", {name: value}) is a message in the reader's language.
window.companionText = function (message, values) {
  const data = document.getElementById("js-messages");
  return ((data && JSON.parse(data.dataset.messages)[message]) || message).replace(/\{(\w+)\}/g, (all, name) => values[name]);
};
// htmx's settings, made before it starts (on DOMContentLoaded; it comes first in the same file): a refusal
// (422) or a conflict (409) is swapped in like any answer, as it says why; no history cache; no inline
// styles, no eval and no scripts from answers (the pages' Content-Security-Policy forbids them).
Object.assign(htmx.config, {
  responseHandling: [{code: "204", swap: false}, {code: "[23]..", swap: true}, {code: "422", swap: true, error: false},
                     {code: "409", swap: true, error: false}, {code: "[45]..", swap: false, error: true}],
  historyCacheSize: 0, includeIndicatorStyles: false, allowEval: false, allowScriptTags: false,
});

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
// A tap sent while the phone has no connection is kept on the phone instead (see below).
(function () {
  "use strict";
  const t = window.companionText;
  const TAP = /\/t\/[^/]+\/s\/\d+\/(entries|undo)$/;      // every game's entry forms and Undo
  const PREVIEW = /\/t\/[^/]+\/s\/\d+\/preview$/;          // needs the server: never kept
  const STORE = "companion-waiting-taps";
  const RETRY_MS = 3000;
  const GIVE_UP_MS = 15000;  // a tap unanswered for this long is kept and sent again (same key)

  // the element `id`, made (a `tag` with `className` and `role`, first in `parent`) if the page has none
  function ensureBox(id, tag, className, role, parent) {
    let box = document.getElementById(id);
    if (!box) {
      box = document.createElement(tag);
      box.id = id;
      box.className = className;
      box.setAttribute("role", role);
      parent.prepend(box);
    }
    return box;
  }
  function notice(text) {
    const box = ensureBox("notice", "p", "notice error", "alert", document.body);
    box.textContent = text;
    box.hidden = false;
    clearTimeout(box._timer);
    box._timer = setTimeout(() => { box.hidden = true; }, 8000);
  }
  function reasonFrom(text) {
    try {
      const doc = new DOMParser().parseFromString(text || "", "text/html");
      const said = doc.querySelector(".error");
      if (said) said.querySelectorAll(".rule-cite").forEach((cite) => cite.remove());  // a link, not the reason
      if (said && said.textContent.trim()) return said.textContent.trim();
    } catch (e) { /* not HTML: fall through */ }
    return null;
  }
  function pathOf(url) { return new URL(url, location.href).pathname; }
  function kind(detail) {
    const cfg = detail.requestConfig;
    if (!cfg || cfg.verb !== "post") return "other";
    const path = pathOf(cfg.path);
    return TAP.test(path) ? "tap" : PREVIEW.test(path) ? "preview" : "other";
  }

  // ---- the waiting taps, in order, in localStorage (a reload or a closed tab keeps them) ----
  // {taps: [{id, url, body, csrf}], held: bool, refused: reason or null}. `held`: the rules refused
  // a tap, so the ones after it wait until the player says to send or drop them.
  let memory = null;  // when localStorage is refused (a private window, full): kept for this page only
  function load() {
    if (memory) return memory;
    try {
      const q = JSON.parse(localStorage.getItem(STORE) || "null");
      if (q && Array.isArray(q.taps)) return q;
    } catch (e) { /* unreadable: start afresh */ }
    return {taps: [], held: false, refused: null};
  }
  function save(q) {
    try {
      localStorage.setItem(STORE, JSON.stringify(q));
      memory = null;
    } catch (e) {
      memory = q;
    }
    show(q);
  }
  function randomKey() {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
  }
  function gameNo() {
    // the version the page shows starts with its game number: a tap sent after a rematch is refused
    const seen = document.getElementById("live-seen");
    return seen ? seen.dataset.version.split(".")[0] : null;
  }
  function keep(cfg) {
    const q = load();
    const body = new URLSearchParams(cfg.formData);
    const game = gameNo();
    if (game) body.set("game_no", game);
    const tap = {id: randomKey(), url: pathOf(cfg.path), body: body.toString(),
                 csrf: (cfg.headers && cfg.headers["X-CSRF-Token"]) || ""};
    q.taps.push(tap);
    save(q);
    // The sheet's next tap needs a key of its own (the server applies a key once).
    document.querySelectorAll('input[name="key"]').forEach((input) => { input.value = randomKey(); });
    drawKept(tap);
    retryLater();
  }
  // A kept tap moves the sheet on as its answer would (the game's script listens: the dice cleared, the
  // box or the round shown as kept), so the next tap starts from what the player sees, never from the
  // last one's leftovers. Only what was tapped is drawn: the rules' verdict waits for the server.
  function sheetOf(url) { return url.replace(/\/(entries|undo)$/, ""); }
  function drawKept(tap, replay) {
    if (sheetOf(tap.url) !== location.pathname) return;
    document.dispatchEvent(new CustomEvent("companion:kept", {detail: {url: tap.url, body: new URLSearchParams(tap.body), replay: Boolean(replay)}}));
  }

  // ---- what the phone shows: static/offline.js draws it, loaded once the page is up (see later()) ----
  let previewOff = false;
  function show(q) {
    document.dispatchEvent(new CustomEvent("companion:queue", {detail: {queue: q, previewOff: previewOff}}));
  }

  // ---- sending them, oldest first, once the connection is back ----
  let sending = false;
  let timer = null;
  function retryLater() {
    clearTimeout(timer);
    timer = setTimeout(flush, RETRY_MS);
  }
  async function post(tap) {
    const token = {readyState: 1};  // the live part below holds back a refresh while this is out
    document.dispatchEvent(new CustomEvent("companion:sending", {detail: token}));
    try {
      return await send(tap);
    } finally {
      token.readyState = 4;
      document.dispatchEvent(new CustomEvent("companion:sent", {detail: token}));
    }
  }
  async function send(tap) {
    try {
      const resp = await fetch(tap.url, {
        method: "POST", body: tap.body, credentials: "same-origin", signal: AbortSignal.timeout(GIVE_UP_MS),
        headers: {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true",
                  "X-CSRF-Token": tap.csrf},
      });
      const text = await resp.text();
      // Not an answer from the rules: try again later (the idempotency key makes that safe).
      if (resp.status >= 500 || resp.status === 408 || resp.status === 429) return null;
      return {status: resp.status, ok: resp.ok && !resp.redirected, text: text};
    } catch (e) {
      return null;  // no connection after all, or the answer was lost on the way
    }
  }
  function drawAnswer(tap, answer) {
    // Only the sheet the tap came from, and only the sheet fragment (200 or a rules refusal).
    if (!window.htmx || location.pathname !== sheetOf(tap.url) || !document.getElementById("sheet")) return;
    if (answer.ok || answer.status === 422 || answer.status === 409) {
      htmx.swap("#sheet", answer.text, {swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0});
      load().taps.forEach((kept) => drawKept(kept, true));  // the ones still waiting stay marked on the new sheet
    }
  }
  function settle(tap, answer) {
    const q = load();
    q.taps = q.taps.filter((t) => t.id !== tap.id);
    if (answer.ok) {
      q.refused = null;
    } else {
      q.refused = reasonFrom(answer.text) || t("the server answered {status}.", {status: answer.status});
      q.held = q.taps.length > 0;
    }
    save(q);
    drawAnswer(tap, answer);
  }
  async function flush() {
    if (sending) return;
    sending = true;
    try {
      for (;;) {
        const q = load();
        if (!q.taps.length || q.held || !navigator.onLine) break;
        const tap = q.taps[0];
        const answer = await post(tap);
        if (answer === null) break;
        settle(tap, answer);
      }
    } finally {
      sending = false;
      const q = load();
      if (q.taps.length && !q.held) retryLater();
    }
  }
  document.addEventListener("click", (evt) => {
    const b = evt.target.closest && evt.target.closest("[data-tap-queue]");
    if (!b) return;
    const q = load();
    const dropped = b.dataset.tapQueue === "drop" && q.taps.some((tap) => sheetOf(tap.url) === location.pathname);
    if (b.dataset.tapQueue === "drop") q.taps = [];
    q.held = false;
    q.refused = null;
    save(q);
    if (dropped) location.reload();  // the sheet still shows the dropped taps as kept: draw it afresh
    else flush();
  });

  // ---- htmx: keep a tap instead of sending it, skip previews while offline ----
  document.addEventListener("htmx:beforeRequest", (evt) => {
    const what = kind(evt.detail);
    if (what === "tap" && (!navigator.onLine || load().taps.length)) {
      evt.preventDefault();  // offline, or earlier taps still wait: keep it behind them
      keep(evt.detail.requestConfig);
      flush();
    } else if (what === "preview" && !navigator.onLine) {
      evt.preventDefault();
      previewOff = true;
      show(load());
    }
  });
  document.addEventListener("htmx:configRequest", (evt) => {
    const cfg = evt.detail;
    if (kind({requestConfig: cfg, elt: cfg.elt}) !== "tap") return;
    cfg.timeout = GIVE_UP_MS;
    // a form drawn without an idempotency key gets one, so a kept copy of the tap is applied once
    if (!cfg.formData.get("key")) cfg.formData.set("key", randomKey());
  });
  document.addEventListener("htmx:timeout", (evt) => {
    if (kind(evt.detail) === "tap") keep(evt.detail.requestConfig);
  });
  document.addEventListener("htmx:afterRequest", (evt) => {
    if (!evt.detail.successful) return;
    const what = kind(evt.detail);
    if (what === "preview" && previewOff) {
      previewOff = false;
      show(load());
    }
    const q = load();
    if (what === "tap" && q.refused && !q.taps.length) {
      q.refused = null;  // a later tap went through: the old refusal is history
      save(q);
    }
  });
  document.addEventListener("htmx:responseError", (evt) => {
    const xhr = evt.detail.xhr;
    notice(t("Not saved: {reason}", {reason: reasonFrom(xhr.responseText) || t("the server answered {status}.", {status: xhr.status}) + " " + t("Tap again.")}));
  });
  document.addEventListener("htmx:sendError", (evt) => {
    const what = kind(evt.detail);
    if (what === "tap") {
      keep(evt.detail.requestConfig);  // it may have arrived: the same key makes a resend harmless
    } else if (what === "preview") {
      previewOff = true;
      show(load());
    } else {  // a step the server draws (a move, a choice to look at) saves nothing: it only cannot be shown
      const get = evt.detail.requestConfig && evt.detail.requestConfig.verb === "get";
      notice((get ? t("No connection: this step needs the server.") : t("Not saved: no connection.")) + " " +
             t("Tap again when the phone is back online."));
    }
  });
  window.addEventListener("online", () => {
    previewOff = false;
    show(load());
    flush();
  });
  window.addEventListener("offline", () => show(load()));
  window.addEventListener("storage", (evt) => { if (evt.key === STORE) show(load()); });
  // The offline part (static/offline.js, the game's own after it: what waits, what each kept tap looks
  // like on the sheet, the copy a reload opens without a connection) comes once the page is up.
  function later() {
    const src = document.body.dataset.offlineJs;
    if (!src || document.getElementById("offline-js")) return;
    const script = Object.assign(document.createElement("script"), {id: "offline-js", src: src});
    script.onload = () => {
      load().taps.forEach((tap) => drawKept(tap, true));  // a reload (offline: the copy) shows them too
      show(load());
    };
    document.head.append(script);
  }
  document.addEventListener("DOMContentLoaded", () => {
    flush();
    later();
  });
})();

// Live updates. The page holds its table's stream (htmx's SSE extension on #live); each event names
// the table's new version. This turns it into the `table-changed` event the fragments listen to, or a
// reload when a rematch began. #live-seen holds the version the page shows: the answer to this phone's
// own tap carries it, so its own entry does not come back as a refresh. A change heard while a request
// is out waits for it to end: a burst of changes makes one refresh and one more after it, not a
// refresh htmx would drop because the fragment's previous one is still in flight. While the stream is
// down (a restart, a proxy that will not hold it, no EventSource) the page asks every 20 s instead.
(function () {
  "use strict";
  const POLL_MS = 20000;
  let source = null;
  // htmx settles swapped-in content 20 ms after the swap: until then a new fragment does not listen
  // for `table-changed` yet, so a change heard in that moment would be lost. Keep clear of it.
  const SETTLE_MS = 120;
  let pending = null;          // a version heard while a request was out
  const inFlight = new Map();  // this page's htmx requests (its own taps, its refreshes) -> when done
  let quietFrom = 0;
  let pollTimer = null;

  function live() { return document.getElementById("live"); }
  function seen() {
    const el = document.getElementById("live-seen");
    return el ? el.dataset.version : null;
  }
  function game(version) { return version ? version.split(".")[0] : null; }
  function state(name) {
    const el = live();
    if (el) el.dataset.live = name;
  }
  function remember(version) {
    document.getElementById("live-seen").dataset.version = version;
    // a stream opened afresh (not the browser's own reconnect, which sends Last-Event-ID) starts here
    const el = live();
    const url = new URL(el.getAttribute("sse-connect"), location.href);
    url.searchParams.set("v", version);
    el.setAttribute("sse-connect", url.pathname + url.search);
  }
  function newer(a, b) {  // versions only move forward (game, entry, seat changes)
    const x = a.split(".").map(Number), y = (b || "0.0.0").split(".").map(Number);
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
    return false;
  }
  function arrived(version, reload) {
    if (!version || !newer(version, seen())) return;
    if (busy()) {
      if (!pending || newer(version, pending.version)) {
        pending = {version: version, reload: reload || Boolean(pending && pending.reload)};
      }
      later(SETTLE_MS);
      return;
    }
    pending = null;
    if (reload || game(version) !== game(seen())) {
      location.reload();
      return;
    }
    remember(version);
    htmx.trigger(document.body, "table-changed");
  }
  function busy() {
    // A request whose element was swapped away ends without an afterRequest reaching the document:
    // forget it once it has been done for a moment.
    const now = Date.now();
    inFlight.forEach((done, xhr) => {
      if (xhr.readyState !== 4) return;
      if (!done) inFlight.set(xhr, now);
      else if (now - done > SETTLE_MS) inFlight.delete(xhr);
    });
    return inFlight.size > 0 || now < quietFrom;
  }
  let waiting = null;
  function later(ms) {
    clearTimeout(waiting);
    waiting = setTimeout(() => {  // after the answer (and the version it carries) is in place
      if (!pending) return;
      if (busy()) { later(SETTLE_MS); return; }
      const p = pending;
      pending = null;
      arrived(p.version, p.reload);
    }, ms);
  }
  function started(evt) { inFlight.set(evt.detail.xhr || evt.detail, 0); }
  function ended(evt) {
    inFlight.delete(evt.detail.xhr || evt.detail);
    quietFrom = Date.now() + SETTLE_MS;
    later(SETTLE_MS);
  }
  document.addEventListener("htmx:beforeSend", started);
  document.addEventListener("htmx:afterRequest", ended);
  document.addEventListener("companion:sending", started);  // a kept tap going out (above)
  document.addEventListener("companion:sent", ended);

  // ---- the slow poll, only while the stream is down ----
  async function poll() {
    if (!navigator.onLine || !live()) return;
    try {
      const url = new URL(live().dataset.pollUrl, location.href);
      url.searchParams.set("v", seen());
      const resp = await fetch(url, {credentials: "same-origin", headers: {"HX-Request": "true"}});
      if (resp.status !== 200) return;
      arrived((await resp.text()).trim(), resp.headers.get("HX-Refresh") === "true");
    } catch (e) { /* no answer: the next tick asks again */ }
  }
  function down() {
    state(navigator.onLine ? "down" : "offline");
    if (!pollTimer) pollTimer = setInterval(poll, POLL_MS);
  }
  function up() {
    state("open");
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function watch(es) {
    source = es;
    es.addEventListener("open", () => { if (source === es) up(); });
    es.addEventListener("error", () => { if (source === es && es.readyState !== EventSource.OPEN) down(); });
    es.addEventListener("table-changed", (e) => arrived(e.lastEventId || e.data, false));
    es.addEventListener("refresh", (e) => arrived(e.lastEventId || e.data, true));
  }
  function reconnect() {
    // a fresh element: the extension closes the old stream and opens one from the version last seen
    const el = live();
    if (!el || !window.EventSource) return;
    const fresh = el.cloneNode(false);
    el.replaceWith(fresh);
    htmx.process(fresh);
  }

  if (window.htmx && window.EventSource) {
    htmx.createEventSource = (url) => {
      if (!navigator.onLine) {  // the extension's own retry while offline: open nothing (`online` reopens it)
        return {readyState: 2, close() {}, addEventListener() {}, removeEventListener() {}};
      }
      const es = new EventSource(url, {withCredentials: true});
      watch(es);
      return es;
    };
  } else if (live()) {
    live().removeAttribute("sse-connect");  // no stream in this browser: poll
    document.addEventListener("DOMContentLoaded", down);
  }
  window.addEventListener("offline", () => {
    if (source) source.close();  // no reconnect attempts while there is nobody to answer them
    source = null;
    if (live()) down();
  });
  window.addEventListener("online", () => {
    if (!live()) return;
    if (window.EventSource) reconnect();
    poll();  // whatever changed while the phone was offline, at once
  });
})();

// After htmx swaps a fragment. A fragment's elements are new after every swap, and screen readers
// announce a change to a live region, not a region newly put in the page: so fragments carry no live
// region, and what changed in the lines marked data-announce (the reader's own total, what they must
// do, the round) is copied into #announce, the one live region, which stays in the page (base.html). Keyboard focus that was in the swapped
// part goes back to the same control, else to the first one there.
(function () {
  "use strict";
  let before = null;
  const texts = () => Array.from(document.querySelectorAll("main [data-announce], main [role=alert]"))
    .filter((el) => !el.closest("#tap-queue")).map((el) => el.textContent.replace(/\s+/g, " ").trim()).filter(Boolean);
  document.addEventListener("htmx:beforeSwap", (evt) => {
    const focused = document.activeElement, target = evt.detail.target;
    before = {texts: texts(), focused: target && target.contains(focused) ? focused : null};
  });
  document.addEventListener("htmx:afterSettle", () => {
    const was = before;
    before = null;
    if (!was) return;
    const changed = texts().filter((text) => !was.texts.includes(text)).join(" ");
    if (changed) document.getElementById("announce").textContent = changed;
    const lost = !document.activeElement || document.activeElement === document.body;
    const root = document.getElementById("sheet") || document.querySelector("main");
    if (!was.focused || !lost || !root) return;
    const f = was.focused, name = f.getAttribute("name");
    const same = f.id ? document.getElementById(f.id)
      : name && root.querySelector('[name="' + CSS.escape(name) + '"][value="' + CSS.escape(f.value || "") + '"]');
    const next = [same, ...root.querySelectorAll("button, input:not([type=hidden]), select, a[href], summary")]
      .find((el) => el && !el.disabled && el.getClientRects().length);
    if (next) next.focus({preventScroll: true});
  });
})();
