// The offline worker, served as /sw.js so that it controls every page (app/web.py).
// Pages and static files: the network first, each answer kept; without a network the saved
// copy (pages matched ignoring Vary: a worker's requests carry no cookie), else the saved
// /offline page. Network first so that a page never meets files older than itself after the
// server is upgraded; offline the app still opens at once from what it kept.
// Nothing else is touched: the socket (/ws/) and the API (/api/) always go to the server.
const VERSION = "v1";
const PAGES = `perudo-pages-${VERSION}`;
const STATIC = `perudo-static-${VERSION}`;
const OFFLINE_PAGE = "/offline";
const START_PAGE = "/"; // the manifest's start_url: the installed app opens offline even if
// the person installed it from a room's link
const MAX_PAGES = 40; // each room visited is a page; the oldest are dropped

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(PAGES)
      .then((cache) => cache.addAll([OFFLINE_PAGE, START_PAGE]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  const keep = new Set([PAGES, STATIC]);
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => !keep.has(name)).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

const isStatic = (url) => url.pathname.startsWith("/static/");
const isPage = (request, url) => request.mode === "navigate" && !url.pathname.startsWith("/api/");

async function keepPage(request, response) {
  if (!response.ok || !(response.headers.get("Content-Type") ?? "").startsWith("text/html")) return;
  const cache = await caches.open(PAGES);
  await cache.put(request, response);
  const saved = await cache.keys(); // oldest first
  const kept = new Set([OFFLINE_PAGE, START_PAGE]);
  const extra = saved.filter((entry) => !kept.has(new URL(entry.url).pathname)).slice(0, -MAX_PAGES);
  await Promise.all(extra.map((entry) => cache.delete(entry)));
}

async function page(event) {
  try {
    const response = await fetch(event.request);
    event.waitUntil(keepPage(event.request, response.clone()));
    return response;
  } catch {
    const cache = await caches.open(PAGES);
    return (
      (await cache.match(event.request, { ignoreVary: true })) ??
      (await cache.match(event.request, { ignoreVary: true, ignoreSearch: true })) ??
      (await cache.match(OFFLINE_PAGE, { ignoreVary: true })) ??
      Response.error()
    );
  }
}

async function keepStatic(request) {
  const response = await fetch(request);
  if (response.ok) await (await caches.open(STATIC)).put(request, response.clone());
  return response;
}

async function staticFile(event) {
  try {
    return await keepStatic(event.request);
  } catch {
    return (await caches.match(event.request)) ?? Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (isPage(event.request, url)) event.respondWith(page(event));
  else if (isStatic(url)) event.respondWith(staticFile(event));
});

// A page loaded before the worker took over names what it used, so it opens offline too.
async function keepAll({ page: path, static: paths }) {
  const pages = await caches.open(PAGES);
  if (!(await pages.match(path, { ignoreVary: true }))) {
    const response = await fetch(path).catch(() => null);
    if (response) await keepPage(new Request(path), response);
  }
  const statics = await caches.open(STATIC);
  const missing = [];
  for (const file of paths) if (!(await statics.match(file))) missing.push(file);
  await Promise.all(missing.map((file) => keepStatic(new Request(file)).catch(() => undefined)));
}

self.addEventListener("message", (event) => {
  if (event.data?.type === "keep") event.waitUntil(keepAll(event.data));
});
