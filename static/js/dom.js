// Small DOM helpers. Every piece of text from the network (names, chat) goes through
// textContent via h(); nothing here ever assigns innerHTML.

/** Create an element: h("li", {class: "x", dataset: {seat: 2}}, "text", child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace all children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function byId(id) {
  return document.getElementById(id);
}

/** Show a short message that fades away; `kind` is "error" or "info". */
export function toast(text, kind = "info") {
  const box = byId("toasts");
  const item = h("p", { class: `toast ${kind}` }, text);
  box.append(item);
  while (box.children.length > 3) box.firstElementChild.remove();
  setTimeout(() => item.remove(), kind === "error" ? 5000 : 3500);
}

/** Fetch JSON; throws an Error whose `status` is the HTTP status on failure. */
export async function getJSON(url, options = {}) {
  const response = await fetch(url, {
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    ...options,
  });
  if (!response.ok) {
    const error = new Error(`HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return response.json();
}
