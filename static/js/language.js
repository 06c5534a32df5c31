// The language switcher in every page's header: remember the choice in the `lang` cookie
// (app/i18n.py reads it) and draw the page again in that language.

const select = document.getElementById("lang-select");

select?.addEventListener("change", () => {
  document.cookie = `lang=${encodeURIComponent(select.value)}; path=/; max-age=31536000; samesite=lax`;
  // ?lang= outranks the cookie, so drop it, or the old choice would stick.
  const url = new URL(location.href);
  url.searchParams.delete("lang");
  if (url.href === location.href) location.reload();
  else location.replace(url.href);
});
