// The minimal page of the server's skeleton (helper F replaces it): shows the map and the
// log, follows the event stream, submits the order box.
const base = document.querySelector('meta[name="api-base"]').content;
const csrf = document.querySelector('meta[name="csrf-token"]').content;

async function refresh() {
  const response = await fetch(`${base}/api/state`);
  if (!response.ok) { document.getElementById('status').textContent = (await response.json()).error; return; }
  const state = await response.json();
  document.getElementById('map-picture').src = state.links.map;
  document.getElementById('status').textContent =
    `action ${state.seq}; to act: ${state.to_act ?? '-'}` + (state.pending ? `; ${state.pending.prompt}` : '');
  const list = document.getElementById('log-entries');
  list.replaceChildren(...state.log.map((entry) => {
    const item = document.createElement('li');
    item.textContent = `#${entry.seq} ${entry.side ?? ''} ${entry.text ?? ''} ${entry.lines.join('; ')}`;
    return item;
  }));
}

document.getElementById('order-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = document.getElementById('order-text').value;
  const response = await fetch(`${base}/api/submit`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
    body: JSON.stringify({ text, key: crypto.randomUUID() }),
  });
  const outcome = await response.json();
  document.getElementById('outcome').textContent = outcome.error ?? outcome.lines.join(' ');
});

const stream = new EventSource(`${base}/events`);
stream.addEventListener('seq', () => refresh());
stream.addEventListener('revoked', () => { stream.close(); document.getElementById('status').textContent = 'This link was revoked.'; });
refresh();
