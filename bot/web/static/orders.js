// Click to give orders: the service's legal entries ({order, shown, label, verb, units,
// places, names}) read as a unit's orders and their places. Click a unit (its counter, its
// chip, or a space then the unit) -> its orders are highlighted on the map and listed ->
// click a destination or target -> the order's text is filled in the editable box, in the
// game's own notation -> Submit.

import { newKey, submit } from "./api.js";

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// a decision with at most this many answers shows each as a button
const MAX_ANSWERS = 24;

export class Orders {
  constructor(root, map, { onStored }) {
    this.root = root;
    this.map = map;
    this.onStored = onStored;
    this.entries = [];
    this.actAs = null; // a GM's page: the side it gives orders for
    this.byPlace = new Set();
    this.pending = null;
    this.where = new Map();
    this.names = new Map();
    this.unit = null;
    this.space = null;
    this.box = root.querySelector("#order-text");
    this.reply = root.querySelector("#order-reply");
    this.units = root.querySelector("#order-units");
    this.list = root.querySelector("#order-list");
    this.plain = root.querySelector("#order-plain");
    this.sending = false;
    root.querySelector("#order-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.send(this.box.value);
    });
    root.querySelector("#order-clear").addEventListener("click", () => this.select(null));
    root.querySelector("#standing-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.send(root.querySelector("#standing-select").value);
    });
  }

  // the legal entries now (after every stored action)
  update(entries, unitsOnMap, pending, seat) {
    this.entries = entries || [];
    const side = seat && (seat.side || this.actAs);
    this.pending = pending && side && pending.side === side ? pending : null;
    // orders naming no unit but a place, many of one verb (a mine per hex, 19.1): given like
    // a unit's, by their verb then the place
    const placed = new Map();
    for (const e of this.entries) {
      if (!e.units.length && e.places.length) placed.set(e.verb, (placed.get(e.verb) || 0) + 1);
    }
    this.byPlace = new Set([...placed].filter(([, n]) => n > MAX_ANSWERS).map(([v]) => v));
    this.names.clear();
    for (const e of this.entries) {
      if (e.units.length) e.units.forEach((u, i) => this.names.set(u, e.names[i] || u));
      else if (this.byPlace.has(e.verb)) this.names.set(`@${e.verb}`, `${e.verb} …`);
    }
    this.where = new Map((unitsOnMap || []).map((u) => [u.id, u.place]));
    if (this.unit && !this.names.has(this.unit)) this.unit = null;
    // the same choices again after a refresh (the player's clicks are kept while they hold)
    const still = new Set(this.entries.map((e) => e.order));
    this.render(this.choices && this.choices.every((e) => still.has(e.order))
      ? this.entries.filter((e) => this.choices.some((c) => c.order === e.order)) : undefined);
  }

  // the key an order is chosen by: its first unit, its verb (``@mine``) or none (a button)
  groupOf(e) {
    if (e.units.length) return e.units[0];
    return e.places.length && this.byPlace.has(e.verb) ? `@${e.verb}` : null;
  }

  ofUnit(unit) {
    return this.entries.filter((e) => this.groupOf(e) === unit);
  }

  placesOf(unit) {
    const out = new Set();
    for (const e of this.ofUnit(unit)) {
      if (e.places.length) out.add(e.places[e.places.length - 1]);
    }
    return [...out];
  }

  select(unit, space = null) {
    this.unit = unit;
    this.space = space;
    this.render();
  }

  // a click on the map's space ``key``
  clickSpace(key) {
    if (this.unit && this.placesOf(this.unit).includes(key)) {
      const found = this.ofUnit(this.unit).filter((e) => e.places[e.places.length - 1] === key);
      this.space = key;
      this.fill(found[0]);
      this.render(found);
      return;
    }
    // a space of one's own units: choose among them
    const here = [...this.names.keys()].filter((u) => this.where.get(u) === key);
    this.unit = here.length === 1 ? here[0] : null;
    this.space = key;
    this.render();
  }

  clickCounter(unit, key) {
    if (this.unit && this.unit !== unit && this.placesOf(this.unit).includes(key)) {
      this.clickSpace(key);
    } else if (this.names.has(unit)) {
      this.select(unit, key);
    } else {
      this.clickSpace(key);
    }
  }

  fill(entry) {
    if (!entry) return;
    this.box.value = entry.order_text || entry.shown || entry.order;
    this.box.focus();
  }

  render(choices) {
    this.choices = choices || null;
    const unit = this.unit;
    this.map.highlight({ places: unit ? this.placesOf(unit) : [], selected: this.space, unit });
    // the units with orders (those in the selected space first, when one is)
    this.units.replaceChildren();
    let units = [...this.names.keys()];
    if (this.space && !unit) {
      const here = units.filter((u) => this.where.get(u) === this.space);
      if (here.length) units = here;
    }
    for (const u of units) {
      const b = el("button", "unit", this.names.get(u));
      b.type = "button";
      b.dataset.unit = u;
      if (u === unit) b.classList.add("selected");
      b.addEventListener("click", () => this.select(u === this.unit ? null : u));
      this.units.append(b);
    }
    // the chosen unit's orders (or the ones at the clicked destination)
    this.list.replaceChildren();
    const shown = choices || (unit ? this.ofUnit(unit) : []);
    for (const e of shown.slice(0, 200)) {
      const b = el("button", "order", e.shown);
      b.type = "button";
      b.dataset.order = e.order;
      if (e.label) b.append(el("span", "label", ` ${e.label}`));
      b.addEventListener("click", () => {
        this.space = e.places.length ? e.places[e.places.length - 1] : this.space;
        this.fill(e);
        this.map.highlight({ places: this.placesOf(unit), selected: this.space, unit });
      });
      this.list.append(b);
    }
    if (shown.length > 200) this.list.append(el("p", "more", `… ${shown.length - 200} more`));
    // the decision owed (casualties, retreats, Advantage, defensive fire...) and the orders
    // that name no unit ("done", "pass", the Rubble roll...) as buttons: a click sends it
    this.plain.replaceChildren();
    const buttons = new Map();
    const unitless = this.entries.filter((x) => this.groupOf(x) === null);
    if (this.pending) {
      this.plain.append(el("p", "prompt", this.pending.prompt));
      // a short list of answers: each a button; a long one (every shot of a Defensive Fire):
      // the answers naming no unit as buttons, the rest by clicking the unit
      const byUnit = new Set(this.entries.filter((x) => this.groupOf(x) !== null)
        .map((x) => x.order));
      const options = this.pending.options;
      const few = options.length <= MAX_ANSWERS;
      for (const o of options) {
        if (!byUnit.has(o.order)) buttons.set(o.order, o.label);
      }
      for (const o of few ? options : []) buttons.set(o.order, o.label);
    }
    for (const e of unitless) {
      if (!buttons.has(e.order)) buttons.set(e.order, e.label);
    }
    for (const [order, label] of [...buttons].slice(0, 60)) {
      const b = el("button", "decision", label && label !== order ? `${label} (${order})` : order);
      b.type = "button";
      b.dataset.order = order;
      b.addEventListener("click", () => this.send(order));
      this.plain.append(b);
    }
  }

  // standing orders: a form of the policies the rules offer (the order standing KIND POLICY),
  // those in force marked
  updateStanding(policies, set) {
    const select = this.root.querySelector("#standing-select");
    const keep = select.value;
    select.replaceChildren();
    for (const p of policies || []) {
      const chosen = (set || {})[p.kind];
      const mark = chosen === p.policy || (!chosen && p.default) ? " (in force)" : "";
      const o = el("option", null, `${p.kind}: ${p.policy}${mark} — ${p.description}`);
      o.value = `standing ${p.kind} ${p.policy}`;
      select.append(o);
    }
    if (keep) select.value = keep;
    this.root.querySelector("#standing-form").hidden = !(policies || []).length;
  }

  // Submit: one idempotency key per click (a retry of the same click reuses it)
  async send(text) {
    text = (text || "").trim();
    if (!text || this.sending) return;
    this.sending = true;
    const key = newKey();
    this.say("Sending…", "pending");
    try {
      let result;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        try {
          result = await submit(text, key, this.actAs);
          break;
        } catch (err) {
          if (attempt === 2) throw err;
        }
      }
      if (result.ok) {
        // the last action this click stored (the page follows to it)
        if ((result.seqs || []).length) this.reply.dataset.seq = String(Math.max(...result.seqs));
        this.say(result.message || `Stored: ${text}`, "ok");
        this.box.value = "";
        this.unit = null;
        this.space = null;
        this.choices = null;
        this.onStored(result);
      } else {
        this.say(result.message || "Refused.", "refused");
      }
    } catch (err) {
      this.say(`No answer from the server (${err.message}): the log shows whether it was stored.`,
        "refused");
    } finally {
      this.sending = false;
    }
  }

  // the reply shown; each final one (stored or refused) numbered in data-n
  say(text, kind) {
    this.reply.textContent = text;
    this.reply.className = `reply ${kind}`;
    if (kind !== "pending") this.reply.dataset.n = String(Number(this.reply.dataset.n || 0) + 1);
  }
}
