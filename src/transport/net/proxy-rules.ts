/**
 * Which proxy, if any, a connection to a target URL goes through. One rule for every network
 * wire (Streamable HTTP, legacy HTTP+SSE, WebSocket) and for the OAuth requests, which go through
 * the transport's own HTTP client.
 *
 * - The per-server `proxy` option wins: a URL sends everything through that proxy (NO_PROXY
 *   still applies), `false` sends nothing through a proxy, whatever the environment says.
 * - Otherwise the environment: `https_proxy`/`HTTPS_PROXY` for https: and wss: targets,
 *   `http_proxy`/`HTTP_PROXY` for http: and ws: targets. The lower-case name wins when both are
 *   set, as in curl and undici's EnvHttpProxyAgent. Unlike undici, an https target does not fall
 *   back to HTTP_PROXY when HTTPS_PROXY is unset: curl does not either, and a proxy meant for
 *   plain traffic is not silently handed TLS tunnels.
 * - `no_proxy`/`NO_PROXY` (lower case wins) lists hosts reached directly; see `bypassesProxy`.
 *
 * A proxy URL is http: or https:, checked when the rules are made. Its credentials (user:pass@)
 * become a `Proxy-Authorization: Basic` header and are never shown: a proxy is named in messages
 * by `shown`, its origin without userinfo.
 */

/** The `proxy` option: a proxy URL for every connection of this server, or `false` for none. */
export type ProxyOption = string | URL | false;

/** The environment the rules read; `process.env` by default, a plain object in tests. */
export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

/** A proxy to go through, as the dispatcher and the WebSocket tunnel need it. */
export interface ProxyRoute {
  /** The proxy's URL without credentials, path or query: `http://proxy.example:3128`. */
  readonly url: URL;
  /** The proxy as messages name it: its origin, never its credentials. */
  readonly shown: string;
  /** `Basic ...` when the proxy URL carried a user name; never shown. */
  readonly authorization: string | undefined;
}

/** The rules of one transport, read once from its option and the environment. */
export interface ProxyRules {
  /** The proxy a connection to `target` goes through, or undefined to connect directly. */
  routeFor(target: URL): ProxyRoute | undefined;
  /** True when no target goes through a proxy (`false`, or no proxy variable set). */
  readonly none: boolean;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "ws:": 80, "https:": 443, "wss:": 443 };

/** One NO_PROXY entry: a host (name or IP literal, lower case, no brackets) and a port, 0 for any. */
interface BypassEntry {
  host: string;
  port: number;
}

/**
 * The rules for one server. `option` is the `proxy` option (undefined when not given); `where`
 * names the option in messages (`StreamableHttpTransport: "proxy"`). A proxy URL that is not
 * http: or https: is a TypeError naming the option or the variable it came from.
 */
export function proxyRules(option: ProxyOption | undefined, where: string, env: ProxyEnvironment = process.env): ProxyRules {
  const bypass = parseNoProxy(firstSet(env, "no_proxy", "NO_PROXY") ?? "");
  if (option === false) return NO_PROXY_RULES;
  if (option !== undefined) {
    const route = proxyRoute(option, `${where} "proxy"`);
    return { none: bypass === "all", routeFor: (target) => (bypassesProxy(target, bypass) ? undefined : route) };
  }
  const httpsName = nameSet(env, "https_proxy", "HTTPS_PROXY");
  const httpName = nameSet(env, "http_proxy", "HTTP_PROXY");
  // Checked now, so a mistyped variable fails when the transport is made, naming the variable.
  const secure = httpsName === undefined ? undefined : proxyRoute(env[httpsName]!, `the environment variable ${httpsName}`);
  const plain = httpName === undefined ? undefined : proxyRoute(env[httpName]!, `the environment variable ${httpName}`);
  if (secure === undefined && plain === undefined) return NO_PROXY_RULES;
  return {
    none: bypass === "all",
    routeFor(target) {
      const route = isSecure(target) ? secure : plain;
      return route === undefined || bypassesProxy(target, bypass) ? undefined : route;
    },
  };
}

const NO_PROXY_RULES: ProxyRules = { none: true, routeFor: () => undefined };

/** The proxy named by `value`, checked: http: or https:, a host, nothing after the origin but `/`. */
export function proxyRoute(value: string | URL, where: string): ProxyRoute {
  let url: URL;
  try {
    url = new URL(value instanceof URL ? value.href : String(value));
  } catch {
    // The value is not repeated: it may carry a password.
    throw new TypeError(`${where} is not a URL; give the proxy as http://host:port (or https://host:port), e.g. "http://proxy.example:3128"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`${where} must be an http: or https: URL (a forward proxy that takes CONNECT), got ${url.protocol}`);
  }
  if (url.hostname === "") throw new TypeError(`${where} has no host; give the proxy as http://host:port`);
  const authorization = url.username === "" ? undefined : `Basic ${Buffer.from(`${credential(url.username, where)}:${credential(url.password, where)}`).toString("base64")}`;
  const bare = new URL(url.origin);
  return { url: bare, shown: bare.origin, authorization };
}

/** A user name or password of a proxy URL, percent-decoded; a broken escape (`%zz`) is a TypeError naming `where`, never the value. */
function credential(encoded: string, where: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new TypeError(
      `${where} has a user name or password that is not valid percent-encoding; write each "%" in them as %25 (and "@" as %40, ":" as %3A)`,
    );
  }
}

/**
 * Whether `target` is reached directly by the NO_PROXY entries, with undici's EnvHttpProxyAgent
 * rules, so one rule holds everywhere:
 * - the list is split at commas and white space; empty entries are skipped;
 * - `*` alone bypasses every host;
 * - an entry matches its host and every subdomain of it; a leading `.` or `*.` is dropped first
 *   (`.example.com`, `*.example.com` and `example.com` are the same entry);
 * - `host:port` matches that port only (the target's default port when its URL has none);
 * - IP literals match as written, IPv6 with or without brackets (`[::1]`, `::1`, `[::1]:8080`);
 *   there are no CIDR ranges;
 * - loopback (`localhost`, `127.0.0.1`, `::1`) goes through the proxy unless it is listed, as in
 *   curl and undici.
 */
export function bypassesProxy(target: URL, entries: readonly BypassEntry[] | "all"): boolean {
  if (entries === "all") return true;
  if (entries.length === 0) return false;
  const host = bareHost(target.hostname);
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  for (const entry of entries) {
    if (entry.port !== 0 && entry.port !== port) continue;
    if (host === entry.host || host.endsWith(`.${entry.host}`)) return true;
  }
  return false;
}

/** A NO_PROXY value as entries, or "all" for `*`. */
export function parseNoProxy(value: string): BypassEntry[] | "all" {
  const entries: BypassEntry[] = [];
  for (const word of value.split(/[,\s]+/)) {
    if (word === "") continue;
    if (word === "*") return "all";
    entries.push(parseEntry(word));
  }
  return entries;
}

function parseEntry(word: string): BypassEntry {
  const lower = word.toLowerCase();
  // [v6]:port, [v6], a bare v6 literal (two colons or more: never host:port), host:port, host.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(lower);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ? Number.parseInt(bracketed[2], 10) : 0 };
  if ((lower.match(/:/g) ?? []).length > 1) return { host: lower, port: 0 };
  const withPort = /^(.+):(\d+)$/.exec(lower);
  const host = (withPort ? withPort[1]! : lower).replace(/^\*?\./, "");
  return { host, port: withPort ? Number.parseInt(withPort[2]!, 10) : 0 };
}

/** A URL's hostname, lower case, an IPv6 literal without its brackets. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

function isSecure(target: URL): boolean {
  return target.protocol === "https:" || target.protocol === "wss:";
}

/** The first of the names that is set to something other than the empty string. */
function nameSet(env: ProxyEnvironment, ...names: string[]): string | undefined {
  return names.find((name) => env[name] !== undefined && env[name]!.trim() !== "");
}

function firstSet(env: ProxyEnvironment, ...names: string[]): string | undefined {
  const name = nameSet(env, ...names);
  return name === undefined ? undefined : env[name];
}
