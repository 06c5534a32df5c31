// Every page: register the offline worker (static/sw.js) and say so when there is no connection.
const line = document.getElementById("offline-line");
// A page opened offline is the worker's saved copy (or its "no connection" page): once the
// connection is back, the real one replaces it.
const openedOffline = !navigator.onLine;

function showConnection() {
  line.hidden = navigator.onLine;
  if (navigator.onLine && openedOffline) location.reload();
}

addEventListener("online", showConnection);
addEventListener("offline", showConnection);
showConnection();

if ("serviceWorker" in navigator) {
  navigator.serviceWorker
    .register("/sw.js")
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => {
      // This page and its files came before the worker may have been there to keep them.
      const here = location.origin;
      const used = performance
        .getEntriesByType("resource")
        .map((entry) => new URL(entry.name))
        .filter((url) => url.origin === here && url.pathname.startsWith("/static/"))
        .map((url) => url.pathname);
      registration.active?.postMessage({ type: "keep", page: location.pathname + location.search, static: used });
    })
    .catch(() => {}); // no worker (a private window, plain http off localhost): the page works as before
}
