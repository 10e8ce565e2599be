/**
 * A Streamable HTTP endpoint reached as legacy HTTP+SSE (a declaration of type "sse" that is
 * wrong): the legacy GET is refused the way a Streamable HTTP endpoint refuses a GET without a
 * session (basic/transports, 2025-03-26: "return HTTP 405 Method Not Allowed, indicating that
 * the server does not offer an SSE stream at this endpoint"; "Servers that require a session ID
 * SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with
 * HTTP 400 Bad Request"), and the failure says what to declare instead. Real servers on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpClient } from "../../src/client/client.js";
import { SseTransport } from "../../src/transport/http/sse.js";
import { startHttpContractServer, type HttpContractServer } from "../fixtures/http-contract-server.js";
import { startEndpoint } from "../fixtures/http-endpoint.js";
import { failure, owned } from "./helpers.js";

const HINT = `if it is a Streamable HTTP endpoint, use type "http" (or leave the type out to let mcpwire choose; in code, HttpTransport)`;

const servers: HttpContractServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function connectAsSse(url: string): Promise<McpClient> {
  return McpClient.connect(new SseTransport(url), { timeoutMs: 20_000 });
}

describe("a Streamable HTTP endpoint reached as legacy HTTP+SSE", () => {
  it("a 400 to the GET (a server that wants a session, the official SDK's): PROTOCOL, saying to use type \"http\"", async () => {
    const server = await startHttpContractServer({ replies: "json", stateful: true });
    servers.push(server);
    const error = await failure(connectAsSse(server.url));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe(`the endpoint answered HTTP 400 to the legacy SSE GET (the request for the SSE stream); ${HINT}`);
  });

  it("a 405 to the GET (no stream offered there): the same hint, and the server's own text is not in the message", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.method !== "GET") return false;
        res.writeHead(405, { "content-type": "application/json", allow: "POST" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Method not allowed: SERVER-TEXT" } }));
        return true;
      }),
    );
    const error = await failure(connectAsSse(endpoint.url));
    expect(error.httpStatus).toBe(405);
    expect(error.message).toContain(`answered HTTP 405 to the legacy SSE GET`);
    expect(error.message).toContain(HINT);
    expect(error.message).not.toContain("SERVER-TEXT");
    expect(error.serverMessage).toBe("Method not allowed: SERVER-TEXT");
  });

  it("a 404 (a wrong path, not a sign of Streamable HTTP) gets no such hint", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.method !== "GET") return false;
        res.writeHead(404).end();
        return true;
      }),
    );
    const error = await failure(connectAsSse(endpoint.url));
    expect(error.httpStatus).toBe(404);
    expect(error.message).not.toContain("Streamable HTTP");
  });
});
