/**
 * What a legacy session needs of its child (gateway/children/ builds it, `SessionRelay`): a
 * `Relay` to a child of its own, spawned by the session's `initialize`, which also says what the
 * child sends outside any request (requests to the client and notifications, for the session's
 * GET stream) and when it is gone.
 */
import type { JsonRpcNotification, JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { Principal } from "../gateway-options.js";
import type { ChildExitCause } from "../ops/telemetry.js";
import type { Relay } from "../relay.js";

export interface SessionChildOwner {
  /** The session's id (`Mcp-Session-Id`): the child's stderr log lines name it, hashed. */
  readonly sessionId?: string;
  /** A message of the child that belongs to no forwarded request: it goes to the GET stream. */
  message(message: JsonRpcRequest | JsonRpcNotification): void;
  /**
   * The child is gone (it exited, was killed, or could not start), not after `close()`. Its
   * pending requests have failed through their sinks; the session answers 404 from now on.
   */
  exited(exit: { pid?: number; exitCode: number | null; signal: string | null }): void;
}

export interface SessionChild extends Relay {
  /** The child's process id, once spawned. */
  readonly pid: number | undefined;
  /** Stops the child (stdin EOF, SIGTERM, SIGKILL to its group), for `cause`; resolves once it exited. Idempotent. */
  close(cause?: ChildExitCause): Promise<void>;
}

/**
 * The relay of one new session, with the principal's environment for its child. The child is
 * spawned by the first request, `initialize`; a child that cannot start fails it (UNAVAILABLE).
 */
export type OpenSessionChild = (owner: SessionChildOwner, principal: Principal) => SessionChild;
