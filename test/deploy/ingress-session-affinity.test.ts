/**
 * deploy/k8s/ingress-session-affinity.yaml, the example for `--legacy session` behind several
 * replicas: it learns a session's replica from the answer's Mcp-Session-Id and routes by it,
 * longer than the gateway keeps an idle session, to the Service and path the gateway serves.
 */
import { describe, expect, it } from "vitest";
import { gatewaySettings } from "./gateway-settings.js";
import { at, manifest, type Json } from "./manifests.js";

const ingress = manifest("Ingress", "mcpwire-gateway");
const snippet = String(at(ingress, "metadata", "annotations")["haproxy.org/backend-config-snippet"]);

const HAPROXY_TIME_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

describe("the session-affinity ingress", () => {
  it("stores the replica that answered under the answer's Mcp-Session-Id, and routes a request by its own", () => {
    expect(snippet).toMatch(/^\s*stick store-response res\.hdr\(mcp-session-id\)\s*$/im);
    expect(snippet).toMatch(/^\s*stick match req\.hdr\(mcp-session-id\)\s*$/im);
    expect(snippet).toMatch(/^\s*stick-table type string\b/im);
  });

  it("keeps an entry longer than the gateway keeps an idle session", () => {
    const expire = /\bexpire (\d+)(ms|s|m|h|d)\b/.exec(snippet);
    expect(expire).not.toBeNull();
    expect(Number(expire![1]) * HAPROXY_TIME_UNIT_MS[expire![2]!]!).toBeGreaterThan(gatewaySettings().sessionIdleMs);
  });

  it("lets a reply stream stay open longer than the gateway's request timeout, which ends it first", () => {
    const timeout = /^(\d+)(ms|s|m|h|d)$/.exec(String(at(ingress, "metadata", "annotations")["haproxy.org/timeout-server"]));
    expect(timeout).not.toBeNull();
    expect(Number(timeout![1]) * HAPROXY_TIME_UNIT_MS[timeout![2]!]!).toBeGreaterThan(gatewaySettings().requestTimeoutMs);
  });

  it("routes the gateway's path on a host the gateway accepts to the Service's port", () => {
    const settings = gatewaySettings();
    const service = manifest("Service", "mcpwire-gateway");
    const servicePorts = (at(service, "spec").ports as Json[]).map((p) => p.name);
    for (const rule of at(ingress, "spec").rules as Json[]) {
      expect(settings.allowedHosts).toContain(rule.host);
      for (const path of at(rule, "http").paths as Json[]) {
        expect(path.path).toBe(settings.path);
        const backend = at(path, "backend", "service");
        expect(backend.name).toBe(at(service, "metadata").name);
        expect(servicePorts).toContain(at(backend, "port").name);
      }
    }
  });
});
