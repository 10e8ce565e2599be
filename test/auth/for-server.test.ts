/**
 * The fallback's legacy transport authorizes for the URL the user gave, so that one login serves
 * the Streamable HTTP attempt and the HTTP+SSE one alike.
 */
import { describe, expect, it } from "vitest";
import { forServer, type AuthProvider, type AuthRefusal, type AuthRequest } from "../../src/transport/http/auth-provider.js";

describe("forServer", () => {
  it("gives the provider the server it stands for, on headers and on refusals", async () => {
    const seen: string[] = [];
    const inner: AuthProvider = {
      headers: (request) => {
        seen.push(`headers ${request.http.server.href} ${request.url.href}`);
        return {};
      },
      challenged: async (refusal) => {
        seen.push(`challenged ${refusal.http.server.href} ${refusal.status}`);
        return true;
      },
      accepted: (request) => seen.push(`accepted ${request.http.server.href}`),
    };
    const wrapped = forServer(inner, new URL("https://example.com/mcp"));
    const request = {
      method: "GET",
      url: new URL("https://example.com/mcp/sse"),
      signal: new AbortController().signal,
      http: { server: new URL("https://example.com/mcp/sse") },
      tried: new Set<string>(),
    } as unknown as AuthRequest;
    await wrapped.headers(request);
    expect(await wrapped.challenged({ ...request, status: 401, wwwAuthenticate: undefined, sent: {}, header: () => undefined } as AuthRefusal)).toBe(true);
    wrapped.accepted!(request);
    expect(seen).toEqual([
      "headers https://example.com/mcp https://example.com/mcp/sse",
      "challenged https://example.com/mcp 401",
      "accepted https://example.com/mcp",
    ]);
    // The caller's request is left as it was.
    expect(request.http.server.href).toBe("https://example.com/mcp/sse");
  });
});
