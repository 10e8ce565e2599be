/**
 * The reference server of the contract suite: the tools every transport is tested with, written
 * with mcpwire's own message types so that `mcpwire/testing` needs no server package. It speaks
 * revision 2025-11-25 (the `initialize` handshake; `server/discover` is a method it does not
 * have, as for any legacy server), enough for a transport, which never knows the era.
 *
 * It serves any number of connections at once, each given as a server end in the official SDK's
 * Transport shape (`start`, `send`, `close`, `onmessage`, `onclose`): `new MemoryTransport(server)`
 * reaches it in memory, and the server side of your own wire hands it one end per connection.
 *
 * Tools (the same as the SDK-built contract servers of mcpwire's own tests):
 * - `echo { text }`: returns the text.
 * - `sleep { ms }`: answers after `ms`, or never if cancelled first.
 * - `blob { bytes }`: returns a text of `bytes` characters ("x" repeated).
 * - `ask_roots`: asks the client for its roots (a server-to-client request), returns them as JSON.
 * - `ask_elicitation`: asks the client to fill a form, returns its answer as JSON.
 * - `progress { steps, ms }`: sends `steps` progress notifications, `ms` apart, then answers.
 * - `silent`: never answers and never writes anything.
 * - `crash`: ends the connection abruptly, from the server's side (`close()` on its end).
 *
 * `resources/read` fails with -32002 (resource not found) for any URI.
 */
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from "../protocol/jsonrpc.js";
import type { MemoryServerEnd } from "../transport/memory.js";

/** How the reference server introduces itself. */
export const CONTRACT_SERVER_INFO = Object.freeze({ name: "contract-server", version: "1.0.0" });

/** The revisions it speaks: the one a client asks for when it is one of these, else the first. */
const REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const RESOURCE_NOT_FOUND = -32002;

const noArguments = { type: "object", properties: {} };
const TOOLS = [
  { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  { name: "sleep", inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] } },
  { name: "blob", inputSchema: { type: "object", properties: { bytes: { type: "number" } }, required: ["bytes"] } },
  { name: "ask_roots", inputSchema: noArguments },
  { name: "ask_elicitation", inputSchema: noArguments },
  { name: "progress", inputSchema: { type: "object", properties: { steps: { type: "number" }, ms: { type: "number" } }, required: ["steps", "ms"] } },
  { name: "silent", inputSchema: noArguments },
  { name: "crash", inputSchema: noArguments },
];

/** The server: `connect` serves one connection on the end given. */
export interface ContractServer {
  connect(end: MemoryServerEnd): Promise<void>;
}

/** A reference server for the contract suite (see `transportContract`). */
export function createContractServer(): ContractServer {
  return {
    async connect(end) {
      new ContractConnection(end);
      await end.start();
    },
  };
}

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

/** One connection's state: the calls running, the questions the server asked the client. */
class ContractConnection {
  private closed = false;
  /** Running tool calls by request id, stopped by `notifications/cancelled` or the end. */
  private readonly running = new Map<RequestId, AbortController>();
  /** The server's own requests to the client, by id. */
  private readonly asked = new Map<RequestId, { resolve(result: unknown): void; reject(error: Error): void }>();
  private nextId = 1;

  constructor(private readonly end: MemoryServerEnd) {
    end.onmessage = (message) => this.receive(message);
    end.onclose = () => this.stop();
  }

  private receive(message: JsonRpcMessage): void {
    if (this.closed || typeof message !== "object" || message === null) return;
    if ("method" in message) {
      if ("id" in message) void this.request(message);
      else if (message.method === "notifications/cancelled") this.running.get((message.params as { requestId?: RequestId } | undefined)?.requestId ?? "")?.abort();
      return;
    }
    if (message.id === null) return;
    const question = this.asked.get(message.id);
    this.asked.delete(message.id);
    if ("result" in message) question?.resolve(message.result);
    else question?.reject(new Error(`the client refused the request (${message.error.code})`));
  }

  private async request(request: JsonRpcRequest): Promise<void> {
    const params = request.params ?? {};
    switch (request.method) {
      case "initialize": {
        const asked = params.protocolVersion;
        const protocolVersion = typeof asked === "string" && REVISIONS.includes(asked) ? asked : REVISIONS[0];
        return this.reply(request.id, { protocolVersion, capabilities: { tools: {}, resources: {}, logging: {} }, serverInfo: CONTRACT_SERVER_INFO });
      }
      case "ping":
      case "logging/setLevel":
        return this.reply(request.id, {});
      case "tools/list":
        return this.reply(request.id, { tools: TOOLS });
      case "resources/read":
        return this.fail(request.id, RESOURCE_NOT_FOUND, "Resource not found", { uri: params.uri });
      case "tools/call":
        return this.callTool(request);
      default:
        return this.fail(request.id, METHOD_NOT_FOUND, "Method not found");
    }
  }

  private async callTool(request: JsonRpcRequest): Promise<void> {
    const { name, arguments: args = {} } = (request.params ?? {}) as { name?: unknown; arguments?: Record<string, unknown> };
    if (!TOOLS.some((tool) => tool.name === name)) return this.fail(request.id, INVALID_PARAMS, `Unknown tool`);
    const stop = new AbortController();
    this.running.set(request.id, stop);
    try {
      const result = await this.runTool(String(name), args, request, stop.signal);
      if (result !== undefined && !stop.signal.aborted) await this.reply(request.id, result);
    } catch {
      if (!stop.signal.aborted) await this.reply(request.id, { content: [{ type: "text", text: "the tool failed" }], isError: true });
    } finally {
      this.running.delete(request.id);
    }
  }

  /** The tool's result, or undefined for one that never answers (silent, crash, cancelled). */
  private async runTool(name: string, args: Record<string, unknown>, request: JsonRpcRequest, signal: AbortSignal): Promise<ToolResult | undefined> {
    const text = (value: string): ToolResult => ({ content: [{ type: "text", text: value }] });
    switch (name) {
      case "echo":
        return text(String(args.text));
      case "sleep":
        return (await pause(Number(args.ms), signal)) ? text(`slept ${Number(args.ms)}`) : undefined;
      case "blob":
        return text("x".repeat(Number(args.bytes)));
      case "ask_roots": {
        const answer = (await this.ask("roots/list", {})) as { roots?: unknown };
        return text(JSON.stringify(answer.roots));
      }
      case "ask_elicitation": {
        const answer = await this.ask("elicitation/create", {
          mode: "form",
          message: "Who are you?",
          requestedSchema: {
            type: "object",
            properties: { name: { type: "string" }, team: { type: "string", default: "support" } },
            required: ["name"],
          },
        });
        return text(JSON.stringify(answer));
      }
      case "progress": {
        const steps = Number(args.steps);
        const token = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
        for (let step = 1; step <= steps; step++) {
          if (!(await pause(Number(args.ms), signal))) return undefined;
          if (token !== undefined) await this.notify("notifications/progress", { progressToken: token, progress: step, total: steps });
        }
        return text(`done ${steps}`);
      }
      case "crash":
        await this.end.close();
        return undefined;
      case "silent":
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        return undefined;
      default:
        throw new Error(`no tool ${name}`);
    }
  }

  private ask(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = `contract-${this.nextId++}`;
    if (this.closed) return Promise.reject(new Error("the connection ended"));
    return new Promise<unknown>((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      this.end.send({ jsonrpc: "2.0", id, method, params }).catch(() => {
        this.asked.delete(id);
        reject(new Error("the question could not be sent"));
      });
    });
  }

  private reply(id: RequestId, result: object): Promise<void> {
    return this.write({ jsonrpc: "2.0", id, result: result as Record<string, unknown> });
  }

  private fail(id: RequestId, code: number, message: string, data?: unknown): Promise<void> {
    return this.write({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  private notify(method: string, params: Record<string, unknown>): Promise<void> {
    return this.write({ jsonrpc: "2.0", method, params });
  }

  /** Sends one message; a connection that ended meanwhile swallows it (nobody is there to read it). */
  private async write(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return;
    await this.end.send(message).catch(() => {});
  }

  /** The end: every running call and every question stops, so nothing of this connection lingers. */
  private stop(): void {
    if (this.closed) return;
    this.closed = true;
    for (const call of this.running.values()) call.abort();
    this.running.clear();
    for (const question of this.asked.values()) question.reject(new Error("the connection ended"));
    this.asked.clear();
  }
}

/** Waits `ms`; false when stopped first (the timer is cleared, so nothing is left waiting). */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stopped);
      resolve(true);
    }, ms);
    const stopped = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", stopped, { once: true });
  });
}
