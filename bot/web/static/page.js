// The seat's page: the map (picture + SVG layer), whose turn, the deadline, pending decisions,
// the briefing and victory status, the log with rule citations and dice, orders by clicks,
// and the replay; it follows the game live from the event stream, without a reload.

import { getJSON, urls } from "./api.js";
import { MapView } from "./map.js";
import { Orders } from "./orders.js";
import { Replay } from "./replay.js";

const $ = (sel) => document.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
};

let state = null;
let loading = null;
let again = false;

const map = new MapView($("#map"), {
  onSpace: (key) => orders.clickSpace(key),
  onCounter: (unit, key) => orders.clickCounter(unit, key),
});
const orders = new Orders($("#orders"), map, { onStored: () => refresh() });
const replay = new Replay($("#replay"), map);

$("#zoom-in").addEventListener("click", () => map.zoom(1.25));
$("#zoom-out").addEventListener("click", () => map.zoom(1 / 1.25));
$("#zoom-fit").addEventListener("click", () => map.fit());

function showStatus(s) {
  $("#game-title").textContent = s.title || s.game;
  $("#seat").textContent = s.seat || s.side || "observer";
  const turn = $("#turn");
  turn.textContent = s.turn || "";
  const act = $("#to-act");
  act.textContent = s.to_act ? `To act: ${s.to_act}` : "";
  act.classList.toggle("you", Boolean(s.your_turn));
  $("#deadline").textContent = s.deadline ? `Deadline: ${s.deadline}` : "";
  const pending = $("#pending");
  pending.replaceChildren();
  for (const p of s.pending || []) pending.append(el("li", "pending", p));
  $("#victory").textContent = s.victory || "";
  $("#result").textContent = s.result || "";
  const brief = $("#briefing");
  brief.replaceChildren();
  for (const para of (s.briefing || "").split(/\n\s*\n/)) {
    if (para.trim()) brief.append(el("p", null, para.trim()));
  }
  const placed = $("#placed");
  placed.replaceChildren();
  for (const line of s.placed || []) placed.append(el("li", null, line));
  $("#placed-box").hidden = !(s.placed && s.placed.length);
  const standing = $("#standing-list");
  standing.replaceChildren();
  for (const [k, v] of Object.entries(s.standing || {})) {
    standing.append(el("li", null, `${k}: ${v}`));
  }
}

function showLog(entries) {
  const log = $("#log");
  log.replaceChildren();
  for (const e of entries || []) {
    const li = el("li", "entry");
    if (e.n !== undefined) li.dataset.n = e.n;
    li.append(el("span", "text", e.text));
    for (const rule of e.rules || []) li.append(el("span", "rule", rule));
    for (const d of e.dice || []) li.append(el("span", "dice", d));
    log.append(li);
  }
  log.scrollTop = log.scrollHeight;
}

async function load() {
  const [s, geo] = await Promise.all([getJSON(urls.state()), getJSON(urls.geometry())]);
  state = s;
  showStatus(s);
  showLog(s.log);
  if (!replay.active) map.show(s.picture || urls.picture(s.head), geo);
  orders.update(s.legal, s.units);
  replay.update(s);
  document.body.dataset.head = s.head;
}

// one load at a time; an update during a load loads once more after it
export async function refresh() {
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    try {
      do {
        again = false;
        await load();
      } while (again);
    } catch (err) {
      $("#status-line").textContent = `Could not load the game: ${err.message}`;
    } finally {
      loading = null;
    }
  })();
  return loading;
}

function follow() {
  const source = new EventSource(urls.events());
  source.addEventListener("open", () => {
    $("#live").textContent = "live";
    $("#live").className = "live on";
  });
  source.addEventListener("error", () => {
    $("#live").textContent = "reconnecting…";
    $("#live").className = "live off";
  });
  const changed = (e) => {
    let head = null;
    try {
      head = JSON.parse(e.data).head;
    } catch {
      head = null;
    }
    if (head === null || state === null || head !== state.head) refresh();
  };
  source.addEventListener("message", changed);
  source.addEventListener("action", changed);
}

refresh().then(follow);
