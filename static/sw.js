// The service worker: a page or one of our files that the network cannot bring comes from the cache
// static/app.js fills (the sheet as the player last saw it, and the scripts and styles it loads).
// The network always comes first, so while it answers nothing stale is ever shown. Live streams,
// polls, posts and the API are left to the network alone.
"use strict";
const COPIES = "companion-offline-v1";  // static/app.js fills it

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (evt) => evt.waitUntil(self.clients.claim()));

function fromCopies(request, url) {
  // a sheet's copy is kept under its path: the same sheet asked for with a query (a ghost's place) too
  const key = request.mode === "navigate" ? url.pathname : request;
  return caches.open(COPIES).then((cache) => cache.match(key, {ignoreVary: true}));
}

self.addEventListener("fetch", (evt) => {
  const request = evt.request;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope).pathname;
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode !== "navigate" && !url.pathname.startsWith(scope + "static/")) return;
  evt.respondWith(fetch(request).catch((failure) => fromCopies(request, url).then((copy) => {
    if (copy) return copy;
    throw failure;
  })));
});
