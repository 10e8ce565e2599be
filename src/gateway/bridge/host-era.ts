/**
 * Which protocol era the host speaks, read from its own messages, so that the remote's transport
 * is told the revision and wire rules as mcpwire's client eras tell it (client/legacy-era.ts,
 * client/modern-era.ts):
 *
 * - legacy (2024-11-05 to 2025-11-25): the host opens with `initialize`; the revision is the one
 *   the remote answers with, and 2025-03-26 alone lets the remote answer with batches;
 * - modern (2026-07-28): a `server/discover`, or any message whose `_meta` names a modern
 *   `io.modelcontextprotocol/protocolVersion`; closing a request's HTTP stream is its
 *   cancellation, and a broken reply stream is re-issued rather than resumed.
 */
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import { Method } from "../../protocol/methods.js";
import { MetaKey, ModernMethod } from "../../protocol/modern.js";
import { LATEST_MODERN_REVISION, isModernRevision, revisionAcceptsBatches } from "../../protocol/revisions.js";
import type { SendContext, WireRules } from "../../transport/transport.js";

export type HostEra = { name: "legacy" } | { name: "modern"; revision: string };

/** What a modern message says of the wire, as the modern era says it (MODERN_WIRE_RULES there). */
export const MODERN_SEND_RULES: Readonly<Pick<SendContext, "closeCancels" | "resumable">> = Object.freeze({ closeCancels: true, resumable: false });

/** The era one host message shows, or undefined when it shows none (a response, a plain notification). */
export function eraOf(message: JsonRpcMessage): HostEra | undefined {
  if (!("method" in message)) return undefined;
  if (message.method === Method.initialize) return { name: "legacy" };
  const revision = (message.params?._meta as Record<string, unknown> | undefined)?.[MetaKey.protocolVersion];
  if (isModernRevision(revision)) return { name: "modern", revision };
  if (message.method === ModernMethod.discover) return { name: "modern", revision: LATEST_MODERN_REVISION };
  return undefined;
}

/** The wire rules of a legacy revision the remote settled on in its `initialize` answer. */
export function legacyWireRules(revision: string): WireRules {
  return { acceptsBatches: revisionAcceptsBatches(revision) };
}
