/**
 * Scope selection (basic/authorization, "Scope Selection Strategy" and "Step-Up Authorization
 * Flow"): the first authorization's scope by priority, the union of a step-up, and
 * `offline_access` only where the authorization server lists it.
 */
import { describe, expect, it } from "vitest";
import { initialScope, joinScopes, scopesOf, stepUpScope, withOfflineAccess, type ScopeSources } from "../../src/auth/scope.js";

describe("scopesOf and joinScopes", () => {
  it.each([
    [undefined, []],
    ["", []],
    ["   ", []],
    ["a", ["a"]],
    ["a b", ["a", "b"]],
    [" a  b\tc ", ["a", "b", "c"]],
    ["b a b a", ["b", "a"]],
    ["files:read files:write", ["files:read", "files:write"]],
  ])("scopesOf(%j) is %j", (scope, scopes) => {
    expect(scopesOf(scope)).toEqual(scopes);
  });

  it("joins with single spaces, and nothing for no scope", () => {
    expect(joinScopes(["a", "b:c"])).toBe("a b:c");
    expect(joinScopes([])).toBeUndefined();
  });
});

describe("initialScope", () => {
  const cases: [string, ScopeSources, string[]][] = [
    ["the challenge first", { challenged: "c1 c2", resourceScopes: ["r1"], configured: "u1" }, ["c1", "c2"]],
    ["the resource's scopes_supported without a challenge scope", { resourceScopes: ["r1", "r2"], configured: "u1" }, ["r1", "r2"]],
    ["the resource's scopes_supported when the challenge scope is empty", { challenged: "  ", resourceScopes: ["r1"], configured: "u1" }, ["r1"]],
    ["the configured scope without either", { configured: "u1 u2" }, ["u1", "u2"]],
    ["the configured scope when scopes_supported is empty", { resourceScopes: [], configured: "u1" }, ["u1"]],
    ["the configured scope when the challenge scope is empty", { challenged: "", configured: "u1" }, ["u1"]],
    ["none at all", {}, []],
    ["none when every source is empty", { challenged: "", resourceScopes: [], configured: "" }, []],
    ["the challenge's repeats dropped", { challenged: "a b a" }, ["a", "b"]],
    ["scopes_supported's repeats dropped", { resourceScopes: ["a", "b", "a"] }, ["a", "b"]],
  ];

  it.each(cases)("%s", (_name, sources, expected) => {
    expect(initialScope(sources)).toEqual(expected);
  });

  it("does not hand back the resource metadata's own list", () => {
    const resourceScopes = ["a"];
    const scopes = initialScope({ resourceScopes });
    scopes.push("b");
    expect(resourceScopes).toEqual(["a"]);
  });
});

describe("stepUpScope", () => {
  const cases: [string, string[], string | undefined, string[]][] = [
    ["what was asked, then what the challenge adds", ["a", "b"], "c d", ["a", "b", "c", "d"]],
    ["a scope asked before is not repeated", ["a", "b"], "b c", ["a", "b", "c"]],
    ["the order of the earlier scopes is kept", ["b", "a"], "a", ["b", "a"]],
    ["repeats within the challenge dropped", ["a"], "c c a", ["a", "c"]],
    ["no challenge scope: the earlier scopes", ["a"], undefined, ["a"]],
    ["nothing before: the challenge's", [], "x y", ["x", "y"]],
    ["nothing at all", [], undefined, []],
  ];

  it.each(cases)("%s", (_name, previous, challenged, expected) => {
    expect(stepUpScope(previous, challenged)).toEqual(expected);
  });

  it("never loses an earlier scope", () => {
    const previous = ["files:read", "files:write"];
    const union = stepUpScope(previous, "admin");
    expect(previous.every((scope) => union.includes(scope))).toBe(true);
    expect(previous).toEqual(["files:read", "files:write"]);
  });
});

describe("withOfflineAccess", () => {
  const cases: [string, string[], string[] | undefined, string[]][] = [
    ["added when the authorization server lists it", ["a"], ["a", "offline_access"], ["a", "offline_access"]],
    ["added to no scope", [], ["offline_access"], ["offline_access"]],
    ["not repeated when already asked", ["offline_access", "a"], ["offline_access"], ["a", "offline_access"]],
    ["removed when the server does not list it", ["a", "offline_access"], ["a"], ["a"]],
    ["removed when the server lists no scopes", ["offline_access", "a"], undefined, ["a"]],
    ["not added when the server lists no scopes", ["a"], undefined, ["a"]],
    ["not added when the server's list is empty", ["a"], [], ["a"]],
    ["not added for a near name", ["a"], ["offline-access", "Offline_Access"], ["a"]],
  ];

  it.each(cases)("%s", (_name, scopes, supported, expected) => {
    expect(withOfflineAccess(scopes, supported)).toEqual(expected);
  });
});
