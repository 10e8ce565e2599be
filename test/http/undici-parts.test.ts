/**
 * The HTTP client loads three of undici's own files by path (undici-parts.ts). An undici upgrade
 * that moves or reshapes them must fail here, naming the part, rather than in a first request.
 */
import { describe, expect, it } from "vitest";
import { undiciParts } from "../../src/transport/http/undici-parts.js";

describe("undiciParts", () => {
  it("finds the agent and the connector where the pinned undici keeps them", () => {
    const parts = undiciParts();
    expect(typeof parts.Agent).toBe("function");
    expect(typeof parts.Agent.prototype.dispatch).toBe("function");
    expect(typeof parts.buildConnector).toBe("function");
    expect(typeof parts.buildConnector({})).toBe("function");
    expect(typeof parts.Dispatcher.prototype.compose).toBe("function");
  });

  it("is the same agent class as the package's index exports (no second copy of undici)", async () => {
    const { Agent, Dispatcher } = await import("undici");
    expect(undiciParts().Agent).toBe(Agent);
    expect(undiciParts().Dispatcher).toBe(Dispatcher);
  });
});
