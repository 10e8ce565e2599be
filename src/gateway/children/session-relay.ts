/**
 * `--legacy session`: one child per legacy session, the whole protocol through it.
 *
 * The child is spawned at the caller's `initialize` (the session's first request), which reaches
 * it unchanged but for its id, so the server negotiates with the real client: its capabilities,
 * its `clientInfo`, its protocol version. Requests the child sends to the client (`roots/list`,
 * `sampling/createMessage`, `elicitation/create`) go under ids of the session's own
 * (`ClientRequestIds`) to the sink of the caller's one request in flight, if exactly one is, else
 * to the session's owner; the caller's answers (`Relay.response`) come back to the child in the
 * child's ids. The child's environment is the target's plus the principal's
 * (`Principal.env`), so a per-user credential reaches that user's server only. Its stderr lines
 * are logged with the session's id, which telemetry hashes (`childStderr`, child-stderr.ts).
 *
 * When the child dies, its pending requests fail at once and the owner hears of the exit: the
 * front then answers the session's requests with 404, and the client initializes again.
 */
import { McpTransportError } from "../../errors.js";
import {
  JSONRPC_INVALID_REQUEST,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../protocol/jsonrpc.js";
import { Method, Notification } from "../../protocol/methods.js";
import { describeValue } from "../../util/whole-number.js";
import type { Principal } from "../gateway-options.js";
import type { ChildExitCause, GatewayTelemetry } from "../ops/telemetry.js";
import type { Relay, RequestSink } from "../relay.js";
import { withEnv, type ChildCommand, type ChildStopTimings } from "./child-command.js";
import { checkChildLimits, checkChildStderr, checkCommand, checkNames } from "./check-options.js";
import type { ChildStderrMode } from "./child-stderr.js";
import { ClientRequestIds } from "./client-request-ids.js";
import { cleanFailure, noChild } from "./failures.js";
import { GatewayChild, type ChildExit, type GatewayChildLimits } from "./gateway-child.js";
import { withId, withParam } from "./rewrite.js";

/** What a session's relay tells the session that owns it. */
export interface SessionRelayOwner {
  /**
   * A message of the child for this session's caller that belongs to no forwarded request: a
   * request to the client while none or several of the caller's requests are in flight (under
   * the session's id for it, which the caller's answer names), a
   * log message, list-changed, a resource update, the child's cancel of its own request.
   */
  message(message: JsonRpcRequest | JsonRpcNotification): void;
  /**
   * The child is gone (or could not be started): the session is over, its pending requests have
   * failed, and the front answers 404 from now on. Called once; not called after `close()`.
   */
  exited(exit: SessionExit): void;
}

/** How a session's child ended; `pid` is absent when it never started. */
export interface SessionExit extends Omit<ChildExit, "pid"> {
  pid?: number;
}

export interface SessionRelayOptions {
  /** The stdio server to run for this session. */
  command: ChildCommand;
  owner: SessionRelayOwner;
  /** Who the session belongs to: its `env` is set for the child, over the target's variables. */
  principal?: Principal;
  limits?: Partial<GatewayChildLimits>;
  stopTimings?: ChildStopTimings;
  telemetry?: GatewayTelemetry;
  /** Each line of the child's stderr a `child_stderr` report to `telemetry` (child-stderr.ts), or not. @default "log" */
  childStderr?: ChildStderrMode;
  /** The session's id, which the child's stderr reports carry (telemetry writes it hashed). */
  sessionId?: string;
}

/** Every option `SessionRelay` takes. */
export const SESSION_RELAY_OPTION_NAMES = ["command", "owner", "principal", "limits", "stopTimings", "telemetry", "childStderr", "sessionId"] as const satisfies readonly (keyof SessionRelayOptions)[];

/** Says what went wrong when a session's first request is not `initialize`. */
const NOT_INITIALIZED = "the session has no server process yet: its first request must be initialize";

export class SessionRelay implements Relay {
  private child: Promise<GatewayChild | undefined> | undefined;
  private spawned: GatewayChild | undefined;
  private readonly clientRequests = new ClientRequestIds();
  private closed = false;
  private ended = false;

  constructor(private readonly options: SessionRelayOptions) {
    checkNames(options, SESSION_RELAY_OPTION_NAMES, "SessionRelay");
    checkCommand(options.command, "SessionRelay");
    checkChildLimits(options.limits, "SessionRelay");
    checkChildStderr(options.childStderr, "SessionRelay");
    if (options.sessionId !== undefined && typeof options.sessionId !== "string") {
      throw new TypeError(`SessionRelay: "sessionId" must be a string, got ${describeValue(options.sessionId)}`);
    }
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.spawned?.pid;
  }

  /** The session still has a child that runs (or one is starting). */
  get alive(): boolean {
    return !this.closed && !this.ended;
  }

  /**
   * Forwards a request of the session's caller. The first must be `initialize`: it spawns the
   * child and reaches it unchanged but for its id. Requests given while the child starts wait
   * for it, in order.
   */
  request(message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal): void {
    if (!this.child) {
      if (message.method !== Method.initialize) {
        sink.failed(new McpTransportError("PROTOCOL", NOT_INITIALIZED, { method: message.method, code: JSONRPC_INVALID_REQUEST }));
        return;
      }
      this.child = this.spawn();
    }
    void this.child.then((child) => {
      if (child) child.request(message, sink, signal, { scope: this });
      else sink.failed(this.closed ? noChild("the session is closed", message.method) : noChild("the server process could not be started", message.method));
    });
  }

  /** Forwards a notification of the caller; a `notifications/cancelled` is mapped to the child's id of that request. */
  notification(message: JsonRpcNotification): void {
    void this.child?.then((child) => {
      if (!child) return;
      if (message.method === Notification.cancelled) child.cancel(this, message);
      else child.notify(message);
    });
  }

  /** The caller's answer to a request the child sent: back to the child in its own id. Unknown or repeated ids are dropped. */
  response(message: JsonRpcResponse): void {
    if (message.id === null) return;
    const childId = this.clientRequests.answer(message.id);
    if (childId === undefined) return;
    void this.child?.then((child) => child?.respond(withId(message, childId)));
  }

  /**
   * Ends the session: the child goes through the close ladder (stdin EOF, SIGTERM, SIGKILL to its
   * group) and its pending requests fail. Resolves once the child's whole group is gone.
   */
  async close(cause: ChildExitCause = "session_ended"): Promise<void> {
    this.closed = true;
    const child = await this.child;
    await child?.close(cause);
  }

  private async spawn(): Promise<GatewayChild | undefined> {
    const { command, principal, limits, stopTimings, telemetry, childStderr, sessionId } = this.options;
    try {
      const child = await GatewayChild.spawn({
        command: withEnv(command, principal?.env),
        limits,
        stopTimings,
        telemetry,
        stderrLog: childStderr === "drop" ? undefined : { era: "legacy", sessionId },
        owner: {
          unrelated: (message, from) => this.fromChild(message, from),
          exited: (exit) => this.onExit(exit),
        },
      });
      this.spawned = child;
      // close() came while the child started: stop it at once.
      if (this.closed) {
        await child.close("session_ended");
        return undefined;
      }
      return child;
    } catch (error) {
      this.ended = true;
      if (!this.closed) {
        const failure = error instanceof McpTransportError ? cleanFailure(error) : undefined;
        this.options.owner.exited({ cause: "crash", exitCode: failure?.exitCode ?? null, signal: failure?.signal ?? null });
      }
      return undefined;
    }
  }

  /**
   * What the child says to the client outside any request: requests get the session's ids. A
   * request asked while exactly one of the caller's requests is in flight goes to that request's
   * sink (over HTTP, on that POST's stream, where a client without a GET stream still hears it:
   * a server asks for sampling or elicitation while it handles a call); otherwise to the owner.
   */
  private fromChild(message: JsonRpcRequest | JsonRpcNotification, child: GatewayChild): void {
    if ("id" in message) {
      const outgoing = withId(message, this.clientRequests.issue(message.id));
      const sink = child.soleCallerSink();
      if (sink) sink.message(outgoing);
      else this.options.owner.message(outgoing);
      return;
    }
    if (message.method === Notification.cancelled) {
      const requestId = message.params?.requestId;
      const callerId = typeof requestId === "string" || typeof requestId === "number" ? this.clientRequests.cancelled(requestId) : undefined;
      // The child cancels a request the caller never saw (or already answered): nothing to say.
      if (callerId !== undefined) this.options.owner.message(withParam(message, "requestId", callerId));
      return;
    }
    this.options.owner.message(message);
  }

  private onExit(exit: ChildExit): void {
    this.ended = true;
    if (!this.closed) this.options.owner.exited(exit);
  }
}
