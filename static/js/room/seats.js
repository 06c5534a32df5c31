// The lobby's seat list: who sits where, who is host, and the host's "Remove" buttons (which ask
// first).
import { byId, fill, h } from "../dom.js";
import { t } from "../i18n.js";
import { badges, isHost, player, presenceDot } from "./people.js";

/** @param {{act: (msg: object) => void}} ctx */
export function render(state, ctx) {
  if (state.phase !== "lobby") return;
  const host = isHost(state);
  const max = Math.max(state.settings.max_players, ...state.players.map((p) => p.seat + 1));
  const seats = [];
  for (let seat = 0; seat < max; seat += 1) {
    const p = player(state, seat);
    seats.push(p ? seatItem(state, p, host, ctx) : emptySeat(seat));
  }
  fill(byId("seats"), seats);
}

function emptySeat(seat) {
  return h("li", { class: "seat empty", dataset: { seat } }, h("span", { class: "seat-name" }, t("Empty seat")));
}

function seatItem(state, p, host, ctx) {
  const you = p.seat === state.you.seat;
  return h(
    "li",
    { class: `seat${you ? " you" : ""}`, dataset: { seat: p.seat } },
    presenceDot(p),
    h("span", { class: "seat-name" }, you ? t("{name} (you)", { name: p.name }) : p.name),
    h("span", { class: "badges" }, badges(state, p)),
    host && !you
      ? h(
          "button",
          {
            type: "button",
            class: "btn subtle small kick",
            "aria-label": t("Remove {name}", { name: p.name }),
            onclick: () => {
              if (window.confirm(t("Remove {name} from the table?", { name: p.name }))) ctx.act({ type: "kick", seat: p.seat });
            },
          },
          t("Remove"),
        )
      : null,
  );
}
