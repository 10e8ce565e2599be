/**
 * Children that are not processes, for what real ones would make slow without making it truer:
 * ten thousand sessions, or a session whose child speaks on cue. A session child answers
 * `initialize`, `ping` and `tools/call` at once (its arguments as text), except the tool `hang`, never; `say(message)` makes it send a message
 * outside any request (to the GET stream). The pool is not used.
 */
import { McpTransportError } from "../../../src/errors.js";
import type { GatewayChildren, GatewayChildrenFactory } from "../../../src/gateway/gateway.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../../../src/protocol/jsonrpc.js";
import type { SessionChild, SessionChildOwner } from "../../../src/gateway/sessions/session-child.js";

export interface FakeSessionChild extends SessionChild {
  readonly closed: boolean;
  say(message: JsonRpcRequest | JsonRpcNotification): void;
  /** The child dies by itself. */
  die(): void;
}

export interface InProcessChildren {
  factory: GatewayChildrenFactory;
  /** Every session child made, in order. */
  readonly sessions: FakeSessionChild[];
  /** Session children not closed yet. */
  open(): number;
}

export function inProcessChildren(): InProcessChildren {
  const sessions: FakeSessionChild[] = [];
  const factory: GatewayChildrenFactory = (): GatewayChildren => ({
    poolFor: () => ({
      request: (_message, sink) => sink.failed(new McpTransportError("UNAVAILABLE", "no pool in these tests")),
      notification: () => {},
      response: () => {},
    }),
    openSessionChild: (owner: SessionChildOwner) => {
      let closed = false;
      let pid: number | undefined;
      const child: FakeSessionChild = {
        get closed() {
          return closed;
        },
        get pid() {
          return pid;
        },
        request(message, sink) {
          if (closed) return;
          if (message.method === "initialize") {
            pid = 100_000 + sessions.length;
            sink.answer({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } } });
          } else if (message.method === "tools/call" && message.params?.name === "hang") {
            // Never answered: the request stays in flight until its caller leaves.
          } else if (message.method === "tools/call") {
            sink.answer({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: JSON.stringify(message.params?.arguments ?? {}) }] } });
          } else {
            sink.answer({ jsonrpc: "2.0", id: message.id, result: {} });
          }
        },
        notification() {},
        response() {},
        async close() {
          closed = true;
        },
        say(message) {
          owner.message(message);
        },
        die() {
          closed = true;
          owner.exited({ exitCode: null, signal: "SIGKILL" });
        },
      };
      sessions.push(child);
      return child;
    },
    start: async () => {},
    close: async () => {},
  });
  return { factory, sessions, open: () => sessions.filter((child) => !child.closed).length };
}
