/**
 * A protocol era: how the client talks to a server once it knows which era the server speaks.
 *
 * Revisions up to 2025-11-25 ("legacy") have an `initialize` handshake, sessions and
 * server-to-client requests; revision 2026-07-28 ("modern") has none of these: every request
 * carries its revision and capabilities in `_meta`, servers answer `server/discover`, and
 * server-to-client questions come back as `input_required` results. The client holds one era
 * object, chosen at connect time; the transports know nothing of eras beyond the headers they
 * are told to send.
 */
import type { Implementation, ServerCapabilities } from "../protocol/schemas.js";
import type { RequestOptions, TransportSession } from "../session/session.js";

export type EraName = "legacy" | "modern";

/** Where an era's requests go: the current session of whatever holds it. */
export interface SessionSource {
  readonly session: TransportSession;
}

export interface ProtocolEra {
  readonly name: EraName;
  /** The revision in use with this server. */
  readonly protocolVersion: string;
  readonly serverInfo: Implementation;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /**
   * Sends one request the way this era does and resolves with its final result (after any
   * renewal, retry or input rounds the era runs). Throws `McpTransportError` like the session.
   */
  request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions): Promise<Record<string, unknown>>;
  /**
   * Sends one notification the way this era does: in the modern era, with the `_meta` fields
   * every modern message carries, so that a server can tell the era of a notification that
   * comes before any request.
   */
  notify(method: string, params: Record<string, unknown> | undefined): Promise<void>;
  /**
   * From now on, send through `source`: the connection that settled this era, whose session
   * changes when it reconnects. Until then an era sends on the session it was settled on.
   */
  bind(source: SessionSource): void;
  /** Throws a clear error, before anything reaches the wire, for a method this era does not have. */
  checkMethod(method: string, label: string): void;
}
