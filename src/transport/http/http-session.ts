/**
 * The session of a Streamable HTTP connection (basic/transports, "Session Management"), as the
 * client holds it: the id the server assigns with its `initialize` answer, sent on every later
 * request with the negotiated `MCP-Protocol-Version`; forgotten when the server answers 404 to a
 * request that carried it (every request then fails with `sessionExpired` until a new
 * `initialize`); ended with a DELETE on close, best-effort and bounded in time.
 */
import { McpTransportError } from "../../errors.js";
import { exchange, type ExchangeOptions } from "./endpoint-policy.js";
import type { HttpClient, HttpResponse } from "./http-client.js";

/**
 * How long the DELETE that ends the session on `close()` may take, in ms. It is best-effort: a
 * server that does not answer must not hold up the close.
 * @default 5_000
 */
export const DELETE_TIMEOUT_MS = 5_000;

/** Session ids are visible ASCII (0x21 to 0x7E) by the specification; the bound on length is ours. */
const SESSION_ID_PATTERN = /^[\x21-\x7E]{1,1024}$/;

export class HttpSession {
  /** The id the server assigned, if it uses sessions. */
  id: string | undefined;
  /** The negotiated revision, sent as `MCP-Protocol-Version` once known. */
  revision: string | undefined;
  /** Set by a 404 on the session; cleared when `initialize` starts a new one. */
  expired = false;

  /** `initialize` starts a new session: nothing of the old one is sent again. */
  startNew(): void {
    this.id = undefined;
    this.revision = undefined;
    this.expired = false;
  }

  /** Takes the id the `initialize` answer assigned, if any. */
  adopt(response: HttpResponse): void {
    const id = response.header("mcp-session-id");
    if (id === undefined) return; // a server without sessions
    if (!SESSION_ID_PATTERN.test(id)) {
      throw new McpTransportError("PROTOCOL", "the endpoint assigned a session id that is not 1 to 1024 visible ASCII characters");
    }
    this.id = id;
  }

  /** The server no longer knows `sent`: forget it. False when a newer session already replaced it. */
  expire(sent: string): boolean {
    if (this.id !== sent) return false;
    this.id = undefined;
    this.expired = true;
    return true;
  }

  /** The failure of a request sent on (or after) a session the server forgot. */
  expiredError(what: string, httpStatus?: number): McpTransportError {
    return new McpTransportError(
      "PROTOCOL",
      `the endpoint no longer knows this session (${what}); initialize a new one`,
      httpStatus === undefined ? { kind: "session_expired", sessionExpired: true } : { kind: "session_expired", sessionExpired: true, httpStatus },
    );
  }

  /** Adds the session's headers to a request's own. */
  stamp(own: Record<string, string>): void {
    if (this.id !== undefined) own["mcp-session-id"] = this.id;
    if (this.revision !== undefined) own["mcp-protocol-version"] = this.revision;
  }
}

/** Ends the session on the server, best-effort and bounded; 405 (not allowed) is fine too. */
export async function deleteSession(
  client: HttpClient,
  url: URL,
  headers: () => Promise<{ headers: Record<string, string>; userHeaders: readonly string[] }>,
  policy: (what: string, userHeaders: readonly string[]) => ExchangeOptions,
): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DELETE_TIMEOUT_MS);
  try {
    const request = await headers();
    const { response } = await exchange(
      client,
      { method: "DELETE", url, headers: request.headers, signal: controller.signal },
      { ...policy("the end of the session", request.userHeaders), attempts: 1 },
    );
    response.discard();
  } catch {
    // Best-effort: the server forgets idle sessions on its own.
  } finally {
    clearTimeout(timer);
  }
}
