/**
 * The method label of the request metrics. A method name is caller input, so it is never a label
 * as given: the MCP methods of both eras (and the notifications a caller may send) are kept, and
 * any other name counts as `other`. Logs use the same folding, so a made-up method name cannot
 * carry a secret into a log line either.
 */
import { OTHER_LABEL_VALUE } from "./metric-registry.js";

/** The methods a caller may send, in revisions 2024-11-05 to 2026-07-28 (with the tasks extension). */
export const KNOWN_METHODS: readonly string[] = Object.freeze([
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "subscriptions/listen",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
  "tasks/update",
  // Answers a legacy caller gives to a child's requests, when the front reports them.
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
  "notifications/elicitation/complete",
]);

const KNOWN = new Set(KNOWN_METHODS);

/** The method as a label or log field may show it: a known MCP method, else `other`. */
export function methodLabel(method: string): string {
  return KNOWN.has(method) ? method : OTHER_LABEL_VALUE;
}
