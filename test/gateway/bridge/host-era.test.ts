/** Which era a host's message shows (basic/versioning of 2026-07-28: `_meta` on every modern request). */
import { describe, expect, it } from "vitest";
import { eraOf, legacyWireRules } from "../../../src/gateway/bridge/host-era.js";

const meta = (revision: unknown) => ({ _meta: { "io.modelcontextprotocol/protocolVersion": revision } });

describe("eraOf", () => {
  it("reads initialize as legacy, whatever revision it asks for", () => {
    expect(eraOf({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05" } })).toEqual({ name: "legacy" });
  });

  it("reads a request or notification whose _meta names a modern revision as modern, with that revision", () => {
    expect(eraOf({ jsonrpc: "2.0", id: 1, method: "tools/list", params: meta("2026-07-28") })).toEqual({ name: "modern", revision: "2026-07-28" });
    expect(eraOf({ jsonrpc: "2.0", method: "notifications/x", params: meta("2026-07-28") })).toEqual({ name: "modern", revision: "2026-07-28" });
  });

  it("reads server/discover as modern even without _meta", () => {
    expect(eraOf({ jsonrpc: "2.0", id: 1, method: "server/discover" })).toEqual({ name: "modern", revision: "2026-07-28" });
  });

  it("reads nothing from a plain request, a response, or a revision that is not modern", () => {
    expect(eraOf({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBeUndefined();
    expect(eraOf({ jsonrpc: "2.0", id: 1, result: {} })).toBeUndefined();
    expect(eraOf({ jsonrpc: "2.0", id: 1, method: "tools/list", params: meta("2025-11-25") })).toBeUndefined();
    expect(eraOf({ jsonrpc: "2.0", id: 1, method: "tools/list", params: meta(20260728) })).toBeUndefined();
  });

  it("lets only 2025-03-26 answer with batches", () => {
    expect(legacyWireRules("2025-03-26")).toEqual({ acceptsBatches: true });
    expect(legacyWireRules("2025-06-18")).toEqual({ acceptsBatches: false });
  });
});
