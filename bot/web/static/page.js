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
$("#zoom-fit").addEventListener("click", () => map.fit(true));

const when = (t) => (t ? new Date(t * 1000).toLocaleString() : "");

// where the game stands, read from the View (each game names its own clock)
function turnLine(view) {
  if (!view) return "";
  if (view.game === "stalingrad") {
    const half = view.day ? "day" : "night";
    return `${view.date_label} ${view.year}, ${half} impulse ${view.box}, ${view.phase}`;
  }
  if (view.game === "tanks") return `Turn ${view.turn} of ${view.last_turn}, ${view.phase}`;
  return view.phase || "";
}

function victoryLine(view) {
  if (!view) return "";
  if (view.game === "stalingrad") return `German Victory Points: ${view.vp} of ${view.vp_total}`;
  return "";
}

function showStatus(s) {
  const game = s.game || {};
  const seat = s.seat || {};
  const view = s.view || {};
  const brief = s.briefing || {};
  $("#game-title").textContent = brief.title || `${game.game} ${game.scenario || ""}`;
  $("#seat").textContent = seat.side || seat.role || "observer";
  $("#turn").textContent = turnLine(view);
  const act = $("#to-act");
  const mine = Boolean(seat.side) && s.to_act === seat.side;
  act.textContent = game.status === "active" && s.to_act
    ? (mine ? "Your turn" : `To act: ${s.to_act}`) : `Game ${game.status || ""}`;
  act.classList.toggle("you", mine);
  const deadline = game.paused ? "paused" : when(game.deadline_at);
  $("#deadline").textContent = deadline ? `Deadline: ${deadline}` : "";
  const pending = $("#pending");
  pending.replaceChildren();
  const p = s.pending;
  if (p) {
    const li = el("li", "pending", `${p.side} to decide: ${p.prompt}${p.rule ? ` (${p.rule})` : ""}`);
    pending.append(li);
  }
  $("#result").textContent = game.result || view.result || "";
  $("#victory").textContent = victoryLine(view);
  const briefing = $("#briefing");
  briefing.replaceChildren();
  if (brief.summary) briefing.append(el("p", null, brief.summary));
  if (brief.length) briefing.append(el("p", null, `Length: ${brief.length}`));
  for (const [side, goal] of Object.entries(brief.goals || {})) {
    const para = el("p", "goal");
    para.append(el("strong", null, `${side}: `), goal);
    briefing.append(para);
  }
  if ((brief.victory || []).length) {
    const ul = el("ul", "victory");
    for (const v of brief.victory) ul.append(el("li", null, v));
    briefing.append(el("h3", null, "Victory"), ul);
  }
  for (const sp of brief.special || []) {
    briefing.append(el("p", "special", `${sp.rule ? `${sp.rule}: ` : ""}${sp.text || sp.title || ""}`));
  }
  const setup = s.setup || {};
  const placed = $("#placed");
  placed.replaceChildren();
  for (const line of setup.placed || []) placed.append(el("li", null, line));
  for (const line of setup.left || []) placed.append(el("li", "left", `to place: ${line}`));
  if (setup.blocked) placed.append(el("li", "left", setup.blocked));
  $("#placed-box").hidden = !((setup.placed || []).length || (setup.left || []).length);
}

// rule citations ("(8.354)", "rule 9.4") and dice ("3 + 3 = 6", "rolls 4", "dr 5") in a log line
const RULE = /\(\d+(?:\.\d+)+[a-z]?\)|\brules? \d+(?:\.\d+)+/;
const DICE = /\d+(?:\s*[+-]\s*\d+)+\s*=\s*\d+|\b(?:rolls?|rolled|DR|dr)\s+(?:an?\s+)?\d+/;

// a log line with its rule citations and dice marked
function logLine(text) {
  const span = el("span", "line");
  const pattern = new RegExp(`(${RULE.source})|(${DICE.source})`, "g");
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > at) span.append(text.slice(at, m.index));
    span.append(el("span", m[1] ? "rule" : "dice", m[0]));
    at = m.index + m[0].length;
  }
  if (at < text.length) span.append(text.slice(at));
  return span;
}

function showLog(entries) {
  const log = $("#log");
  log.replaceChildren();
  for (const e of entries || []) {
    const li = el("li", "entry");
    li.dataset.seq = e.seq;
    if (e.reverted_by) li.classList.add("reverted");
    const head = `#${e.seq} ${e.side || e.kind}: `;
    li.append(el("span", "head", head));
    li.append(el("span", "text", e.text || (e.withheld ? "(secret)" : "")));
    for (const line of e.lines || []) li.append(logLine(line));
    log.append(li);
  }
  log.scrollTop = log.scrollHeight;
}

// the side the page gives orders for: the seat's own; a GM's page the side chosen in its
// tools (by default the side to act)
function gmSide(s) {
  const seat = s.seat || {};
  if (seat.side) return seat.side;
  if (seat.role !== "gm") return null;
  const select = $("#gm-side");
  const sides = (s.game || {}).sides || [];
  $("#gm-tools").hidden = false;
  if (select.options.length !== sides.length) {
    select.replaceChildren(...sides.map((x) => {
      const o = el("option", null, x);
      o.value = x;
      return o;
    }));
    select.value = s.pending ? s.pending.side : (s.to_act || sides[0]);
  }
  orders.actAs = select.value;
  return select.value;
}

$("#gm-side").addEventListener("change", () => refresh());

// each unit of the View with the space it stands in (for a click on a space)
function unitsOf(view) {
  return ((view && view.units) || []).map((u) => ({ id: u.id, place: u.loc || u.hex || null }));
}

async function load() {
  // a player's page asks for its orders at once; a GM's once it knows the side it plays
  const { role, side: own } = document.body.dataset;
  const early = role === "player" && own ? getJSON(urls.entries()) : null;
  const [s, geo, first] = await Promise.all([
    getJSON(urls.state()), getJSON(urls.geometry()).catch(() => null), early]);
  state = s;
  showStatus(s);
  showLog(s.log);
  // a game without a map picture (a plug-in game) has no map: the page is its columns
  const drawn = Boolean(geo && geo.size);
  $("#map").hidden = !drawn;
  if (drawn && !replay.active) map.show(s.links.map, geo);
  const none = { entries: [], standing: [], set: {} };
  const side = gmSide(s);
  let legal = first || none;
  if (!first && side && !s.seat.side && (s.game || {}).status === "active") {
    legal = await getJSON(urls.entries(side));
  }
  orders.update(legal.entries, unitsOf(s.view), s.pending, s.seat);
  orders.updateStanding(legal.standing, legal.set);
  replay.update(s);
  document.body.dataset.seq = s.seq;
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
      head = JSON.parse(e.data).seq;
    } catch {
      head = null;
    }
    if (head === null || state === null || head !== state.seq) refresh();
  };
  source.addEventListener("seq", changed);
  source.addEventListener("revoked", () => {
    source.close();
    $("#live").textContent = "this link was revoked";
    $("#live").className = "live off";
  });
}

refresh().then(follow);
