// The room settings form (templates/_settings.html), read and written by field name.
import { CALZA_RULES, DEFAULT_CALZA_RULE } from "./codes.js";
import { n } from "./i18n.js";

/** Fill the choices the wire vocabulary owns (the calza rules); once per form, before use. */
export function prepareSettings(form) {
  const select = form.elements.calza_rule;
  select.replaceChildren(...CALZA_RULES.map((rule) => new Option(rule.label, rule.value)));
  select.value = DEFAULT_CALZA_RULE;
}

/** The settings a form holds, as PROTOCOL.md spells them. */
export function readSettings(form) {
  const seconds = form.elements.turn_seconds.value;
  return {
    max_players: Number(form.elements.max_players.value),
    calza: form.elements.calza.checked,
    palifico: form.elements.palifico.checked,
    odds: form.elements.odds.checked,
    calza_rule: form.elements.calza_rule.value,
    turn_seconds: seconds === "" ? null : Number(seconds),
  };
}

/** Show `settings` in the form; an unlisted timer value gets its own option. */
export function writeSettings(form, settings) {
  const els = form.elements;
  els.max_players.value = String(settings.max_players);
  els.calza.checked = Boolean(settings.calza);
  els.palifico.checked = Boolean(settings.palifico);
  els.odds.checked = Boolean(settings.odds);
  els.calza_rule.value = settings.calza_rule;
  const seconds = settings.turn_seconds === null ? "" : String(settings.turn_seconds);
  if (![...els.turn_seconds.options].some((option) => option.value === seconds)) {
    els.turn_seconds.append(new Option(n("{count} second", "{count} seconds", Number(seconds)), seconds));
  }
  els.turn_seconds.value = seconds;
}

/** Enable or disable every field (only the host may edit). */
export function lockSettings(form, locked) {
  for (const el of form.elements) el.disabled = locked;
}
