// The seat's JSON API (docs/web.md): every URL is under the page's own link, read from the
// page (data-base); every POST carries the page's CSRF token and an idempotency key.

const body = document.body;
export const base = body.dataset.base;
const csrf = body.dataset.csrf;

export const urls = {
  state: () => `${base}/api/state`,
  geometry: () => `${base}/api/geometry`,
  entries: (side) => `${base}/api/entries${side ? `?side=${encodeURIComponent(side)}` : ""}`,
  events: () => `${base}/events`,
  submit: () => `${base}/api/submit`,
  replay: () => `${base}/api/replay`,
  verify: () => `${base}/api/verify`,
};

export async function getJSON(url) {
  const r = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
  return r.json();
}

// POST an order: the service's outcome ({status, error, rule, lines, ...}) with ``ok`` (stored,
// in whole or in part) and ``message`` (the refusal's rule-cited text, or what happened)
export async function submit(text, key, side = null) {
  const r = await fetch(urls.submit(), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(side ? { text, key, side } : { text, key }),
  });
  let data;
  try {
    data = await r.json();
  } catch {
    return { ok: false, message: `${r.status} ${r.statusText}` };
  }
  const stored = r.ok && (data.status === "applied" || data.status === "partial");
  const lines = (data.lines || []).join("\n");
  let message;
  if (stored) message = lines || `Stored: ${text}`;
  else message = [data.error, data.rule && !String(data.error || "").includes(data.rule)
    ? `(${data.rule})` : "", (data.legal || []).length ? `Legal: ${data.legal.join("; ")}` : ""]
    .filter(Boolean).join(" ");
  return { ...data, ok: stored, message: message || `${r.status} ${r.statusText}` };
}

// a fresh idempotency key: one per click that sends an order
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}
