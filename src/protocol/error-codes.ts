/**
 * JSON-RPC error codes that MCP revision 2025-11-25 defines for its own cases (JSON-RPC's codes
 * are in jsonrpc.ts, those of revision 2026-07-28 in modern.ts).
 */

/**
 * URL elicitation required (client/elicitation, "URL Elicitation Required Error"): the request
 * cannot be processed until the user completes the URL elicitations listed in the error's
 * `data.elicitations`; the client may then send it again.
 */
export const URL_ELICITATION_REQUIRED = -32042;
