// The seat's JSON API (docs/web.md): every URL is under the page's own link, read from the
// page (data-base); every POST carries the page's CSRF token and an idempotency key.

const body = document.body;
export const base = body.dataset.base;
const csrf = body.dataset.csrf;

export const urls = {
  state: () => `${base}/state.json`,
  geometry: () => `${base}/geometry.json`,
  picture: (head) => `${base}/map.png?head=${encodeURIComponent(head)}`,
  events: () => `${base}/events`,
  orders: () => `${base}/orders`,
  replay: () => `${base}/replay.json`,
  frame: (n) => `${base}/replay/${encodeURIComponent(n)}.png`,
};

export async function getJSON(url) {
  const r = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
  return r.json();
}

// POST an order: {ok, message} from the service (a refusal's message is the rule-cited one)
export async function submit(text, key) {
  const r = await fetch(urls.orders(), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify({ text, key }),
  });
  let data = {};
  try {
    data = await r.json();
  } catch {
    data = { ok: false, message: `${r.status} ${r.statusText}` };
  }
  if (data.ok === undefined) data.ok = r.ok;
  return data;
}

// a fresh idempotency key: one per click that sends an order
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}
