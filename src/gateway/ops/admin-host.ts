/**
 * Which `Host` the admin server answers. The threat is DNS rebinding: a web page whose name the
 * attacker re-points at this machine, reading `/metrics` from the browser. Such a request always
 * carries the attacker's name in `Host`, so the admin server answers a Host that is an IP literal
 * (probes and scrapers reach pods by IP), `localhost`, or one of `allowedHosts` (the front's
 * list), and refuses every other name with 403. Unlike the front, a non-loopback admin address
 * needs no `allowedHosts` to start: the kubelet and Prometheus send the pod's IP, which no list
 * written before the pod exists could hold.
 */
import { isIP } from "node:net";

export function adminHostAllowed(hostHeader: string | undefined, allowedHosts: readonly string[]): boolean {
  if (hostHeader === undefined || hostHeader === "") return false;
  const header = hostHeader.toLowerCase();
  if (allowedHosts.some((allowed) => allowed.toLowerCase() === header)) return true;
  const host = hostName(header);
  if (host === undefined) return false;
  if (allowedHosts.some((allowed) => allowed.toLowerCase() === host)) return true;
  return host === "localhost" || isIP(host) !== 0;
}

/** The name of `host[:port]` or `[v6][:port]`, without port or brackets; undefined when malformed. */
function hostName(header: string): string | undefined {
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s]+))(?::\d{1,5})?$/.exec(header);
  return match?.[1] ?? match?.[2];
}
