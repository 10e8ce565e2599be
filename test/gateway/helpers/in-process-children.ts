/**
 * Children that are not processes, for what real ones would make slow without making it truer:
 * ten thousand sessions, or a session whose child speaks on cue. A session child answers
 * `initialize`, `ping` and `tools/call` at once (its arguments as text), except the tool `hang`, never; `say(message)` makes it send a message
 * outside any request (to the GET stream). A child made while `holdInitialize` is set answers its
 * `initialize` only at `answerInitialize()` (a server slow to start); closed before that, it fails
 * it as a real child does. The pool is not used.
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
  /** Answers the `initialize` it holds (made while `holdInitialize` was set). */
  answerInitialize(): void;
}

export interface InProcessChildren {
  factory: GatewayChildrenFactory;
  /** Every session child made, in order. */
  readonly sessions: FakeSessionChild[];
  /** Session children not closed yet. */
  open(): number;
  /** Children made while it is set hold their `initialize` until `answerInitialize()`. */
  holdInitialize: boolean;
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
      const holds = children.holdInitialize;
      let held: (() => void) | undefined;
      let failHeld: (() => void) | undefined;
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
            const answer = () =>
              sink.answer({
                jsonrpc: "2.0",
                id: message.id,
                result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } },
              });
            if (holds) {
              held = answer;
              failHeld = () => sink.failed(new McpTransportError("DISCONNECTED", "the server process ended before answering this request"));
            } else {
              answer();
            }
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
          failHeld?.();
          held = failHeld = undefined;
        },
        say(message) {
          owner.message(message);
        },
        die() {
          closed = true;
          owner.exited({ exitCode: null, signal: "SIGKILL" });
        },
        answerInitialize() {
          held?.();
          held = failHeld = undefined;
        },
      };
      sessions.push(child);
      return child;
    },
    start: async () => {},
    close: async () => {},
  });
  const children: InProcessChildren = { factory, sessions, open: () => sessions.filter((child) => !child.closed).length, holdInitialize: false };
  return children;
}
