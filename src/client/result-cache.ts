/**
 * The freshness hints of revision 2026-07-28 (server/utilities/caching): a `server/discover` or
 * list result with `ttlMs` may be served again until it expires or a list-changed notification
 * says otherwise.
 *
 * `cacheScope: "private"` results live in one client's cache only (one authorization context);
 * `"public"` results are also shared, process-wide, by clients of the same server. Results of a
 * retried input round are never cached (they depend on inputs outside the key).
 */

interface Entry {
  result: Record<string, unknown>;
  expiresAt: number;
}

/** Bound on entries per cache; the oldest go first. */
const MAX_ENTRIES = 256;

const shared = new Map<string, Entry>();

function remember(map: Map<string, Entry>, key: string, entry: Entry): void {
  map.delete(key);
  map.set(key, entry);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

function fresh(map: Map<string, Entry>, key: string, now: number): Record<string, unknown> | undefined {
  const entry = map.get(key);
  if (!entry) return undefined;
  if (now < entry.expiresAt) return entry.result;
  map.delete(key);
  return undefined;
}

export class ResultCache {
  private readonly own = new Map<string, Entry>();

  /** `server` names the server for the shared cache (e.g. the transport's description). */
  constructor(private readonly server: string) {}

  get(method: string, params: Record<string, unknown> | undefined, now = Date.now()): Record<string, unknown> | undefined {
    const key = keyOf(method, params);
    return fresh(this.own, key, now) ?? fresh(shared, `${this.server}\n${key}`, now);
  }

  set(method: string, params: Record<string, unknown> | undefined, result: Record<string, unknown>, now = Date.now()): void {
    const ttlMs = typeof result.ttlMs === "number" && result.ttlMs > 0 ? result.ttlMs : 0;
    if (ttlMs === 0 || params?.inputResponses !== undefined || params?.requestState !== undefined) return;
    const entry = { result, expiresAt: now + ttlMs };
    const key = keyOf(method, params);
    remember(this.own, key, entry);
    if (result.cacheScope === "public") remember(shared, `${this.server}\n${key}`, entry);
  }

  /** Forgets every result of these methods (a list-changed notification). */
  invalidate(methods: readonly string[]): void {
    for (const map of [this.own, shared]) {
      for (const key of [...map.keys()]) {
        const method = (map === shared ? key.slice(key.indexOf("\n") + 1) : key).split("\n", 1)[0]!;
        if ((map === this.own || key.startsWith(`${this.server}\n`)) && methods.includes(method)) map.delete(key);
      }
    }
  }
}

/** Method and parameters, without `_meta` (it carries the client's identity, not the question). */
function keyOf(method: string, params: Record<string, unknown> | undefined): string {
  if (!params) return `${method}\n`;
  const { _meta: _ignored, ...rest } = params;
  return `${method}\n${stableJson(rest)}`;
}

/** JSON with object keys sorted at every depth, so equal parameters make equal keys. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
