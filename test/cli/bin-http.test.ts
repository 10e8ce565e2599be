/**
 * The real `mcpwire` bin against Streamable HTTP servers run in this process on 127.0.0.1: the
 * contract server (the official SDK's server transport) and a scripted endpoint that records
 * the headers it receives.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { jsonRpcResult, startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { startHttpContractServer, type HttpContractServer } from "../fixtures/http-contract-server.js";
import { runBin } from "./helpers.js";
import { closedPort } from "../helpers/ports.js";

let server: HttpContractServer;
let endpoint: ScriptedEndpoint;

beforeAll(async () => {
  server = await startHttpContractServer({ replies: "sse", stateful: true });
  endpoint = await startEndpoint();
});

afterAll(async () => {
  await Promise.all([server?.close(), endpoint?.close()]);
});

describe("mcpwire over Streamable HTTP", () => {
  it("tools and call reach the server by URL", async () => {
    const tools = await runBin(["tools", server.url]);
    expect(tools.code).toBe(ExitCode.OK);
    expect(tools.stdout).toMatch(/^echo +text: string$/m);

    const call = await runBin(["call", server.url, "echo", "text=over http"]);
    expect(call).toEqual({ code: ExitCode.OK, stdout: "over http\n", stderr: "" });
  });

  it("info --json names the transport chosen and the revision negotiated", async () => {
    const { code, stdout } = await runBin(["info", server.url, "--json"]);
    expect(code).toBe(ExitCode.OK);
    expect(JSON.parse(stdout)).toMatchObject({
      serverInfo: { name: "contract-server" },
      transport: "streamable-http",
      era: "legacy",
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
  });

  it("the session is ended when the command is done", async () => {
    await runBin(["ping", server.url]);
    await expect.poll(() => server.sessions, { timeout: 10_000 }).toBe(0);
  });

  it("progress of a long call is not drawn when stderr is not a terminal", async () => {
    const { code, stdout, stderr } = await runBin(["call", server.url, "progress", "steps=3", "ms=20"]);
    expect({ code, stdout, stderr }).toEqual({ code: ExitCode.OK, stdout: "done 3\n", stderr: "" });
  });

  it("--header is sent with every request", async () => {
    const before = endpoint.requests.length;
    const { code, stdout } = await runBin(["call", endpoint.url, "echo", "text=hi", "--header", "Authorization: Bearer s3cret", "--header", "X-Team: blue"]);
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toBe("hi\n");
    const seen = endpoint.requests.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const request of seen) expect(request.headers).toMatchObject({ authorization: "Bearer s3cret", "x-team": "blue" });
  });

  it('--header "Authorization:" (no value) is a usage error, and nothing is sent', async () => {
    const before = endpoint.requests.length;
    const { code, stdout, stderr } = await runBin(["call", endpoint.url, "echo", "text=hi", "--header", "Authorization:"]);
    expect(code).toBe(ExitCode.USAGE);
    expect(stdout).toBe("");
    expect(stderr).toContain('the header Authorization has no value; write it as --header "Authorization: value"');
    expect(endpoint.requests.length).toBe(before);
  });

  it("a refused port: UNAVAILABLE, one line", async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await runBin(["ping", `http://127.0.0.1:${port}/mcp`]);
    expect(code).toBe(ExitCode.UNAVAILABLE);
    expect(stdout).toBe("");
    expect(stderr.split("\n")).toHaveLength(2);
    // The one line says why, without --verbose.
    expect(stderr).toMatch(new RegExp(`^mcpwire: .*http://127\\.0\\.0\\.1:${port} could not be reached \\(ECONNREFUSED\\), for request "server/discover" after 3 attempts`));
  });

  it("--verbose names the target and the cause of a refused connection", async () => {
    const { code, stderr } = await runBin(["ping", `http://127.0.0.1:${await closedPort()}/mcp`, "--verbose"]);
    expect(code).toBe(ExitCode.UNAVAILABLE);
    expect(stderr).toMatch(/^mcpwire: target: http endpoint http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    expect(stderr).toMatch(/^ {2}reason: UNAVAILABLE$/m);
    expect(stderr).toMatch(/ECONNREFUSED/);
  });

  it("tools piped (stdout not a terminal) prints every argument and the whole description; $COLUMNS, if set, is the width", async () => {
    const args = Array.from({ length: 10 }, (_, index) => `argument${index}`);
    const description = "Takes many arguments, and says so at some length in this description.";
    const wide = await startEndpoint((request, res) => {
      if (request.body?.method !== "tools/list") return false;
      const properties = Object.fromEntries(args.map((name) => [name, { type: "string" }]));
      const tool = { name: "wide", description, inputSchema: { type: "object", properties, required: args } };
      res.writeHead(200, { "content-type": "application/json" }).end(jsonRpcResult(request.body.id, { tools: [tool] }));
      return true;
    });
    try {
      const piped = await runBin(["tools", wide.url], { env: { COLUMNS: undefined } });
      expect(piped.code).toBe(ExitCode.OK);
      expect(piped.stdout).toMatch(new RegExp(`^wide {2}${args.map((name) => `${name}: string`).join(", ")} {2}${description}$`, "m"));
      expect(piped.stdout).not.toContain("…");

      const fitted = await runBin(["tools", wide.url], { env: { COLUMNS: "70" } });
      expect(fitted.code).toBe(ExitCode.OK);
      expect(fitted.stdout).toContain("…");
      expect(fitted.stdout.trimEnd().split("\n").every((line) => [...line].length <= 70)).toBe(true);
    } finally {
      await wide.close();
    }
  });

  it("a Streamable HTTP server declared with type \"sse\": the one line says to use type \"http\", not a bare HTTP 400", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpwire-declared-sse-"));
    try {
      const config = join(dir, "mcp.json");
      await writeFile(config, JSON.stringify({ mcpServers: { handbook: { type: "sse", url: server.url } } }));
      const { code, stdout, stderr } = await runBin(["tools", "handbook", "--config", config]);
      expect(code).toBe(ExitCode.PROTOCOL);
      expect(stdout).toBe("");
      // One line; the server's own words are left to --verbose.
      expect(stderr.split("\n")).toHaveLength(2);
      expect(stderr).toMatch(/^mcpwire: the endpoint answered HTTP 400 to the legacy SSE GET \(the request for the SSE stream\); /);
      expect(stderr).toContain(`if it is a Streamable HTTP endpoint, use type "http" (or leave the type out to let mcpwire choose; in code, HttpTransport)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("--env-allow with a URL is a usage error", async () => {
    const { code, stderr } = await runBin(["ping", server.url, "--env-allow", "HOME"]);
    expect(code).toBe(ExitCode.USAGE);
    expect(stderr).toMatch(/--env-allow applies to servers run as a command; this target is the http endpoint/);
  });
});
