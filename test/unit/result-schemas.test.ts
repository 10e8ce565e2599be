/**
 * The MCP result schemas and the PROTOCOL failure a mismatch becomes: required fields checked,
 * unknown fields kept, arrays never taken for objects, and a message that names the field and
 * what the schema expects, never the value the server sent.
 */
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/errors.js";
import { loadSchemas } from "../../src/protocol/schema-registry.js";
import { matching, parseResult } from "../../src/client/validate.js";

const schemas = await loadSchemas();

function failureOf(run: () => unknown): McpTransportError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpTransportError) return error;
    throw error;
  }
  throw new Error("expected a PROTOCOL failure");
}

const tool = { name: "search", inputSchema: { type: "object" } };

describe("the MCP result schemas", () => {
  it("keep the fields they do not name, at every level", () => {
    const result = parseResult(
      schemas.ListToolsResultSchema,
      { tools: [{ ...tool, vendorHint: 1, annotations: { readOnlyHint: true, since: "2026" } }], extra: true },
      "listTools",
      "test",
    );
    expect(result).toEqual({ tools: [{ ...tool, vendorHint: 1, annotations: { readOnlyHint: true, since: "2026" } }], extra: true });
  });

  it("give a tool result without content an empty list, as 2024-11-05 servers never omit it", () => {
    expect(parseResult(schemas.CallToolResultSchema, { structuredContent: { n: 1 } }, "callTool", "test").content).toEqual([]);
  });

  it("refuse an array where the specification has an object", () => {
    const error = failureOf(() =>
      parseResult(schemas.InitializeResultSchema, { protocolVersion: "2025-11-25", capabilities: [], serverInfo: { name: "s", version: "1" } }, "initialize", "test"),
    );
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toBe("initialize returned a result that does not match the MCP schema at capabilities: expected object (test)");
    expect(matching(schemas.CallToolResultSchema, { content: [], structuredContent: [1, 2] })).toBeUndefined();
  });

  it("name the field and what is expected there, never the value the server sent", () => {
    const secret = "sk-live-do-not-print";
    const wrongType = failureOf(() => parseResult(schemas.CallToolResultSchema, { content: [{ type: "text", text: { secret } }] }, 'callTool "a"', "test"));
    expect(wrongType.message).toBe('callTool "a" returned a result that does not match the MCP schema at content.0.text: expected string (test)');
    const wrongLiteral = failureOf(() =>
      parseResult(schemas.ListToolsResultSchema, { tools: [{ ...tool, execution: { taskSupport: secret } }] }, "listTools", "test"),
    );
    expect(wrongLiteral.message).toContain('at tools.0.execution.taskSupport: expected "forbidden" or "optional" or "required"');
    const missing = failureOf(() => parseResult(schemas.ListPromptsResultSchema, { prompts: [{ name: secret, arguments: [{}] }] }, "listPrompts", "test"));
    expect(missing.message).toContain("at prompts.0.arguments.0.name: missing");
    const noKind = failureOf(() => parseResult(schemas.CallToolResultSchema, { content: [{ type: secret }] }, "callTool", "test"));
    expect(noKind.message).toContain("at content.0.type: expected");
    for (const error of [wrongType, wrongLiteral, missing, noKind]) expect(error.message).not.toContain(secret);
  });

  it("check the ranges the specification sets: model priorities from 0 to 1, at least one required elicitation", () => {
    const params = { messages: [], maxTokens: 10 };
    expect(matching(schemas.CreateMessageParamsSchema, { ...params, modelPreferences: { costPriority: 1 } })).toBeDefined();
    expect(matching(schemas.CreateMessageParamsSchema, { ...params, modelPreferences: { costPriority: 1.5 } })).toBeUndefined();
    expect(matching(schemas.UrlElicitationRequiredDataSchema, { elicitations: [] })).toBeUndefined();
    const elicitation = { mode: "url", message: "Sign in", url: "https://example.com/", elicitationId: "e1" };
    expect(matching(schemas.UrlElicitationRequiredDataSchema, { elicitations: [elicitation] })).toBeDefined();
  });

  it("refuse an extension task whose status lacks what goes with it", () => {
    const task = { taskId: "t1", createdAt: "2026-07-28T00:00:00Z", lastUpdatedAt: "2026-07-28T00:00:00Z", ttlMs: null };
    const check = (value: object) => failureOf(() => parseResult(schemas.ExtensionGetTaskResultSchema, value, "tasks/get", "test")).message;
    expect(check({ ...task, status: "completed" })).toContain("at result: a completed task carries result");
    expect(check({ ...task, status: "failed" })).toContain("at error: a failed task carries error");
    expect(check({ ...task, status: "input_required" })).toContain("at inputRequests: an input_required task carries inputRequests");
    expect(parseResult(schemas.ExtensionGetTaskResultSchema, { ...task, status: "working" }, "tasks/get", "test").status).toBe("working");
  });
});
