// The page's messages in its language: the JSON block base.html embeds, generated on the server
// from locale/<lang>/LC_MESSAGES/messages.po (app/i18n.py). English is the source, so a message
// missing from the block shows as written. `pybabel extract` finds t() and n() calls (babel.cfg):
// call them with a literal string, never a variable.

const block = document.getElementById("i18n-messages");
const data = block ? JSON.parse(block.textContent) : {};
const messages = data.messages ?? {};

/** The page's language code, as `<html lang>` says. */
export const lang = data.lang ?? document.documentElement.lang ?? "en";

const categories = data.plurals ?? ["one", "other"];
const rules = new Intl.PluralRules(lang);

function format(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** t("{name} opened.", {name}) -> the translation with `{name}` filled in. */
export function t(msgid, params = {}) {
  const text = messages[msgid];
  return format(typeof text === "string" ? text : msgid, params);
}

/** n("{count} die", "{count} dice", count): the form this language uses for `count`. */
export function n(singular, plural, count, params = {}) {
  const forms = messages[singular];
  const all = { count, ...params };
  if (!Array.isArray(forms)) return format(count === 1 ? singular : plural, all);
  const index = categories.indexOf(rules.select(count));
  return format(forms[index >= 0 ? index : forms.length - 1], all);
}

/**
 * t() for text with elements inside: "Counted {count}." with `count` a <strong> gives
 * ["Counted ", <strong>, "."], for h() or fill(). Strings in `params` stay text.
 */
export function tNodes(msgid, params = {}) {
  return t(msgid)
    .split(/(\{\w+\})/)
    .filter((part) => part !== "")
    .map((part) => {
      const key = part.match(/^\{(\w+)\}$/)?.[1];
      return key !== undefined && key in params ? params[key] : part;
    });
}

/** A date and time as this language writes them. */
export function dateTime(date) {
  return date.toLocaleString(lang);
}

/** ["a", "b", "c"] -> "a, b and c", as this language joins a list. */
export function listText(items) {
  return new Intl.ListFormat(lang, { type: "conjunction" }).format(items);
}

const percentFormat = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 });

/** A chance as a whole percentage: "62%"; "<1%" and ">99%" rather than a rounded 0 or 100. */
export function percent(chance) {
  const shown = Math.min(0.99, Math.max(0.01, chance));
  if (chance === 0 || chance === 1 || shown === chance) return percentFormat.format(chance);
  return `${chance < shown ? "<" : ">"}${percentFormat.format(shown)}`;
}

/** `path` on this site, keeping this page's `?lang=` (a choice made by link, not cookie). */
export function keepingLang(path) {
  const chosen = new URLSearchParams(location.search).get("lang");
  if (!chosen) return path;
  const url = new URL(path, location.origin);
  url.searchParams.set("lang", chosen);
  return url.pathname + url.search;
}
