/**
 * The first exchange the pool has with each child it spawns, which says the child is alive and
 * which era it serves:
 * - modern (2026-07-28): `server/discover`, which servers MUST implement (server/discover). Any
 *   answer counts, a JSON-RPC error included (an unsupported version, say): the child read a line
 *   and wrote one, which is what "alive" means here; callers send their own `_meta` anyway. An
 *   error that is not a recognized modern one (-32020 to -32022) says the server speaks the
 *   legacy era only: "fall back on any error that is not a recognized modern error" (basic/
 *   versioning, "Backward Compatibility"). server-everything and server-memory answer -32601
 *   (Method not found). That answer is recorded (`discoverRefusal`, see child-pool.ts).
 * - legacy stateless: the gateway's own `initialize` (basic/lifecycle), with its own `clientInfo`
 *   and no client capabilities, since no caller is there to answer a request from the server;
 *   then `notifications/initialized`. The child then serves any caller's requests as one session.
 *   Its `InitializeResult` is recorded for the callers' own `initialize` (see child-pool.ts).
 */
import { McpTransportError } from "../../errors.js";
import { isFailure, type JsonRpcErrorObject, type JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { Method, Notification } from "../../protocol/methods.js";
import { MetaKey, ModernMethod, isModernErrorCode } from "../../protocol/modern.js";
import { LATEST_LEGACY_REVISION, LATEST_MODERN_REVISION } from "../../protocol/revisions.js";
import type { GatewayChild } from "./gateway-child.js";
import { PACKAGE_VERSION } from "../../package-version.js";

/** Which callers a pool serves: 2026-07-28 ones, or legacy ones in `--legacy stateless` mode. */
export type PoolEra = "modern" | "legacy-stateless";


/** How the gateway introduces itself to a child it initializes or probes. */
export const GATEWAY_CLIENT_INFO = Object.freeze({ name: "mcpwire-gateway", version: PACKAGE_VERSION });

/** What a probe learned: for a legacy child, the result of the gateway's `initialize`. */
export interface ProbeResult {
  initializeResult?: Record<string, unknown>;
  /** A modern probe answered with an error no modern server gives: the server's own error, as it came. */
  discoverRefusal?: JsonRpcErrorObject;
}

/** Probes a new child; rejects (a clean failure) when it died, stayed silent, or refused to initialize. */
export async function probeChild(child: GatewayChild, era: PoolEra, timeoutMs: number): Promise<ProbeResult> {
  if (era === "modern") {
    const discovered = await child.call(
      ModernMethod.discover,
      {
        _meta: {
          [MetaKey.protocolVersion]: LATEST_MODERN_REVISION,
          [MetaKey.clientInfo]: { ...GATEWAY_CLIENT_INFO },
          [MetaKey.clientCapabilities]: {},
        },
      },
      timeoutMs,
    );
    return isFailure(discovered) && !isModernErrorCode(discovered.error.code) ? { discoverRefusal: discovered.error } : {};
  }
  const answer: JsonRpcResponse = await child.call(
    Method.initialize,
    { protocolVersion: LATEST_LEGACY_REVISION, capabilities: {}, clientInfo: { ...GATEWAY_CLIENT_INFO } },
    timeoutMs,
  );
  if (isFailure(answer)) {
    throw new McpTransportError("PROTOCOL", "the server process refused the gateway's initialize", { kind: "server_error", code: answer.error.code });
  }
  child.notify({ jsonrpc: "2.0", method: Notification.initialized });
  return { initializeResult: answer.result };
}
