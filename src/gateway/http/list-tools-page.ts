/**
 * The gateway's own `tools/list`, one page at a time, through a relay (the modern pool), for the
 * tool header catalog. It carries the gateway's own 2026-07-28 `_meta` (basic/index: every
 * request carries its revision, capabilities and client identity), the same identity the pool's
 * probe gives. A relay always settles a request (an answer, or a failure at its timeout), so the
 * promise settles too.
 */
import type { McpTransportError } from "../../errors.js";
import type { JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { Method } from "../../protocol/methods.js";
import { MetaKey } from "../../protocol/modern.js";
import { LATEST_MODERN_REVISION } from "../../protocol/revisions.js";
import { GATEWAY_CLIENT_INFO } from "../children/pool-probe.js";
import type { Relay } from "../relay.js";
import type { ListToolsPage } from "./tool-header-catalog.js";

export function listToolsThrough(relay: () => Relay): ListToolsPage {
  let nextId = 0;
  return (cursor) =>
    new Promise<JsonRpcResponse>((resolve, reject) => {
      const params: Record<string, unknown> = {
        _meta: {
          [MetaKey.protocolVersion]: LATEST_MODERN_REVISION,
          [MetaKey.clientInfo]: { ...GATEWAY_CLIENT_INFO },
          [MetaKey.clientCapabilities]: {},
        },
        ...(cursor === undefined ? {} : { cursor }),
      };
      relay().request(
        { jsonrpc: "2.0", id: `gateway-tools-${++nextId}`, method: Method.toolsList, params },
        {
          // Progress or log notices of the listing concern no caller.
          message: () => {},
          answer: resolve,
          failed: (error: McpTransportError) => reject(error),
        },
        new AbortController().signal,
      );
    });
}
