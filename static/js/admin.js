// The operator's console: ask before closing a room or draining an instance, and refresh the
// figures now and then while nobody is typing a notice.
const REFRESH_MS = 15000;

for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}

const notice = document.getElementById("notice-text");
if (notice) {
  setInterval(() => {
    if (document.visibilityState === "visible" && !notice.value && document.activeElement !== notice) {
      location.replace("/admin" + location.search.replace(/[?&]done=[^&]*/, ""));
    }
  }, REFRESH_MS);
}
