// What the Maven harness (clients/src/test/java/.../PolyglotClientsTest) hands the suite.
export const live = {
  url: process.env.TOOLLEDGER_URL,
  lossyUrl: process.env.TOOLLEDGER_LOSSY_URL,
  control: process.env.TOOLLEDGER_PROXY_CONTROL,
  token: process.env.TOOLLEDGER_TOKEN,
};

/** Why the live tests are skipped, or false when a node was handed over. */
export const skipLive =
  live.url && live.lossyUrl && live.control && live.token
    ? false
    : 'no node: run through `mvn -B verify` (module clients), which starts one and sets TOOLLEDGER_URL etc.';

async function control(method, path) {
  const r = await fetch(live.control + path, { method });
  if (!r.ok) throw new Error(`proxy control ${path}: HTTP ${r.status}`);
  return r.json();
}

export const proxy = {
  dropNext: (count = 1) => control('POST', `/drop?count=${count}`),
  holdNext: () => control('POST', '/hold'),
  release: () => control('POST', '/release'),
  reset: () => control('POST', '/reset'),
  stats: () => control('GET', '/stats'),
};

/** Notes on the node with this title (the ledger's read view, straight to the node). */
export async function notesTitled(title) {
  const r = await fetch(`${live.url}/v1/notes?limit=1000`, {
    headers: { authorization: `Bearer ${live.token}` },
  });
  if (!r.ok) throw new Error(`GET /v1/notes: HTTP ${r.status}`);
  const { notes } = await r.json();
  return notes.filter((n) => n.title === title);
}

/** The node's record of a key (`GET /v1/operations/{key}`), or undefined for 404. */
export async function operation(key) {
  const r = await fetch(`${live.url}/v1/operations/${encodeURIComponent(key)}`, {
    headers: { authorization: `Bearer ${live.token}` },
  });
  if (r.status === 404) return undefined;
  if (!r.ok) throw new Error(`GET /v1/operations: HTTP ${r.status}`);
  return r.json();
}

export function unique(prefix) {
  return `${prefix} ${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
}
