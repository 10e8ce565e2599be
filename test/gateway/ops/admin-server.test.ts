/**
 * The admin server over real loopback HTTP: /healthz, /readyz following the readiness, /metrics
 * in the text format with its content type, 404 and 405, the Host rule, and a close() that
 * leaves no socket behind, idle keep-alive and half-sent requests included.
 */
import http from "node:http";
import net from "node:net";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../../src/errors.js";
import { startAdminServer, type AdminServer } from "../../../src/gateway/ops/admin-server.js";
import { Drain } from "../../../src/gateway/ops/drain.js";
import { createGatewayTelemetry } from "../../../src/gateway/ops/gateway-telemetry.js";
import { PROMETHEUS_CONTENT_TYPE } from "../../../src/gateway/ops/prometheus-text.js";
import { Readiness } from "../../../src/gateway/ops/readiness.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { parsePrometheusText } from "./helpers/parse-prometheus.js";

const own = closedAfterEach();

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection (no agent), with the Host header given. */
function request(server: AdminServer, path: string, options: { method?: string; host?: string; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port: server.address.port,
        path,
        method: options.method ?? "GET",
        agent: false,
        headers: { host: options.host ?? `127.0.0.1:${server.address.port}` },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** The status line of an answer to bytes written as they are (a missing or empty Host). */
async function rawStatus(server: AdminServer, bytes: string): Promise<number> {
  const socket = net.connect(server.address.port, "127.0.0.1");
  socket.setEncoding("utf8");
  let text = "";
  socket.on("data", (chunk: string) => (text += chunk));
  socket.end(bytes);
  await once(socket, "close");
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]);
}

/** Resolves when the socket closed, by FIN or by reset (events.once would reject on the reset). */
function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once("close", () => resolve())));
}

async function start(readiness = new Readiness({ waitFor: [] }), metrics = () => "# HELP x y\n# TYPE x gauge\nx 1\n", allowedHosts?: string[]) {
  const server = await startAdminServer({ listen: "127.0.0.1:0", readiness, metrics, ...(allowedHosts ? { allowedHosts } : {}) });
  own(server);
  return server;
}

describe("the admin server", () => {
  it("answers /healthz with 200 while the process runs", async () => {
    const server = await start(new Readiness()); // not ready: health does not depend on it
    const answer = await request(server, "/healthz");
    expect(answer.status).toBe(200);
    expect(answer.body).toBe("ok\n");
    expect(answer.headers["cache-control"]).toBe("no-store");
  });

  it("answers /readyz 503 with the reason until the readiness is ready, then 200, then 503 when draining", async () => {
    const readiness = new Readiness();
    const server = await start(readiness);
    expect(await request(server, "/readyz")).toMatchObject({ status: 503, body: "not ready: pool: not reported yet\n" });
    readiness.report("pool", true);
    expect(await request(server, "/readyz")).toMatchObject({ status: 200, body: "ready\n" });
    readiness.report("capacity", false, "over the session cap");
    expect(await request(server, "/readyz")).toMatchObject({ status: 503, body: "not ready: capacity: over the session cap\n" });
    readiness.report("capacity", true);
    readiness.startDraining();
    const draining = await request(server, "/readyz");
    expect(draining).toMatchObject({ status: 503, body: "not ready: draining\n" });
    expect(draining.headers["content-type"]).toBe("text/plain; charset=utf-8");
  });

  it("fails /readyz the moment the drain starts, while /healthz stays 200 through it", async () => {
    const readiness = new Readiness({ waitFor: [] });
    const server = await start(readiness);
    expect((await request(server, "/readyz")).status).toBe(200);
    let closeChildren!: () => void;
    const childrenClosing = new Promise<void>((resolve) => (closeChildren = resolve));
    const drain = new Drain({
      readiness,
      drainDelayMs: 600_000,
      drainMs: 600_000,
      hooks: {
        refuseNewRequests: () => {},
        whenIdle: async () => {},
        failInFlight: () => 0,
        closeChildren: () => childrenClosing,
      },
    });
    const done = drain.start();
    expect(await request(server, "/readyz")).toMatchObject({ status: 503, body: "not ready: draining\n" });
    expect((await request(server, "/healthz")).status).toBe(200);
    void drain.hurry();
    closeChildren();
    await done;
    expect((await request(server, "/readyz")).status).toBe(503);
  });

  it("answers /metrics in the Prometheus text format with its content type", async () => {
    const telemetry = createGatewayTelemetry({ log: () => {} });
    try {
      telemetry.requestDone({ requestId: "r", era: "modern", method: "tools/call", outcome: "ok", status: 200, durationMs: 3 });
      const server = await start(undefined, () => telemetry.metricsText());
      const answer = await request(server, "/metrics?debug=1");
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe(PROMETHEUS_CONTENT_TYPE);
      expect(answer.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
      const families = parsePrometheusText(answer.body);
      expect(families.get("mcpwire_gateway_requests_total")!.samples[0]!.value).toBe(1);
    } finally {
      telemetry.close();
    }
  });

  it("answers 500 without the cause when the metrics cannot be rendered", async () => {
    const server = await start(undefined, () => {
      throw new Error("secret internal state");
    });
    expect(await request(server, "/metrics")).toMatchObject({ status: 500, body: "metrics unavailable\n" });
  });

  it("answers HEAD as GET without a body, other paths 404, other methods 405 with Allow", async () => {
    const server = await start();
    const head = await request(server, "/healthz", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(await request(server, "/")).toMatchObject({ status: 404 });
    expect(await request(server, "/healthz/")).toMatchObject({ status: 404 });
    expect(await request(server, "/mcp", { method: "POST", body: "{}" })).toMatchObject({ status: 404 });
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
      const answer = await request(server, "/readyz", { method, body: method === "POST" ? "x" : undefined });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD");
    }
  });

  it("closes the connection after answering a request that came with a body it did not read", async () => {
    const server = await start();
    const socket = net.connect(server.address.port, "127.0.0.1");
    socket.setEncoding("utf8");
    let text = "";
    socket.on("data", (chunk: string) => (text += chunk));
    // Keep-alive asked for, a body sent: the server answers and closes rather than read on.
    socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
    await closed(socket);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.toLowerCase()).toContain("connection: close");
  });

  it("refuses a Host that is a name other than localhost or an allowed one (DNS rebinding), and takes IP literals", async () => {
    const server = await start(undefined, undefined, ["metrics.internal:9090"]);
    const port = server.address.port;
    expect(await request(server, "/metrics", { host: "attacker.example" })).toMatchObject({ status: 403, body: "host not allowed\n" });
    expect(await request(server, "/healthz", { host: `attacker.example:${port}` })).toMatchObject({ status: 403 });
    expect(await rawStatus(server, "GET /healthz HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n")).toBe(403);
    expect(await rawStatus(server, "GET /healthz HTTP/1.0\r\nConnection: close\r\n\r\n")).toBe(403);
    expect(await request(server, "/healthz", { host: `localhost:${port}` })).toMatchObject({ status: 200 });
    expect(await request(server, "/healthz", { host: "10.1.2.3:9090" })).toMatchObject({ status: 200 });
    expect(await request(server, "/healthz", { host: "[::1]:9090" })).toMatchObject({ status: 200 });
    expect(await request(server, "/healthz", { host: "metrics.internal:9090" })).toMatchObject({ status: 200 });
    expect(await request(server, "/healthz", { host: "metrics.internal:9091" })).toMatchObject({ status: 403 });
  });

  it("close() stops listening and ends idle keep-alive and half-sent connections; it is idempotent", async () => {
    const server = await startAdminServer({ listen: "127.0.0.1:0", readiness: new Readiness(), metrics: () => "" });
    const port = server.address.port;
    expect(server.url).toBe(`http://127.0.0.1:${port}`);

    const agent = new http.Agent({ keepAlive: true });
    const answered = await new Promise<net.Socket>((resolve, reject) => {
      const outgoing = http.get({ host: "127.0.0.1", port, path: "/healthz", agent }, (response) => {
        response.resume();
        response.on("end", () => resolve(outgoing.socket!));
      });
      outgoing.on("error", reject);
    });
    expect(answered.destroyed).toBe(false); // kept alive, idle, in the agent
    answered.on("error", () => {}); // a reset is one way for the server to end it
    const idleClosed = closed(answered);

    const halfSent = net.connect(port, "127.0.0.1");
    halfSent.on("error", () => {}); // a reset is one way for the server to end it
    await once(halfSent, "connect");
    halfSent.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // headers never finished
    const halfClosed = closed(halfSent);

    await Promise.all([server.close(), server.close()]);
    await Promise.all([idleClosed, halfClosed]);
    agent.destroy();

    const refused = net.connect(port, "127.0.0.1");
    const [error] = (await once(refused, "error")) as [NodeJS.ErrnoException];
    expect(error.code).toBe("ECONNREFUSED");
  });

  it("fails with UNAVAILABLE naming the address when it cannot listen, and refuses bad options", async () => {
    const first = await start();
    const failure = await startAdminServer({ listen: `127.0.0.1:${first.address.port}`, readiness: new Readiness(), metrics: () => "" }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpTransportError);
    expect(failure).toMatchObject({ reason: "UNAVAILABLE", message: `admin server: cannot listen on 127.0.0.1:${first.address.port} (EADDRINUSE)` });
    await expect(startAdminServer({ listen: "9090", readiness: new Readiness(), metrics: () => "" })).rejects.toThrow(
      /adminListen "9090" is not host:port/,
    );
    await expect(startAdminServer({ listen: "127.0.0.1:0", readiness: new Readiness(), metrics: () => "", allowedHost: [] } as never)).rejects.toThrow(
      /unknown option "allowedHost" \(did you mean "allowedHosts"\?\)/,
    );
  });
});
