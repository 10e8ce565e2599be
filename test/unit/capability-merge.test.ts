/** Client capabilities from several sources: objects merge at every depth, other values replace. */
import { describe, expect, it } from "vitest";
import { mergeCapabilities } from "../../src/client/capability-merge.js";

describe("mergeCapabilities", () => {
  it("keeps both sides' keys under tasks, at every depth", () => {
    const receiving = { tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } } };
    const requesting = { tasks: { requests: { elicitation: { create: {} } } } };
    const user = { experimental: { x: {} }, tasks: { requests: { sampling: { mine: true } } } };
    expect(mergeCapabilities(receiving, requesting, undefined, user)).toEqual({
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {}, mine: true }, elicitation: { create: {} } } },
      experimental: { x: {} },
    });
  });

  it("replaces what is not an object on both sides, and changes none of its arguments", () => {
    const base = { sampling: {}, roots: { listChanged: true }, list: [1, 2] };
    const layer = { sampling: "off", roots: undefined, list: [3] };
    const merged = mergeCapabilities(base, layer);
    expect(merged).toEqual({ sampling: "off", roots: undefined, list: [3] });
    expect(base).toEqual({ sampling: {}, roots: { listChanged: true }, list: [1, 2] });
    expect(layer).toEqual({ sampling: "off", roots: undefined, list: [3] });
  });

  it("keeps a __proto__ key from a parsed file as a key, never as a prototype", () => {
    const merged = mergeCapabilities({}, JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
