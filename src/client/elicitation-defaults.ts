/**
 * Elicitation defaults (SEP-1034, revision 2025-11-25): a form field the user left out gets the
 * `default` its schema declares, so a server receives the value it offered rather than nothing.
 */
import type { ElicitFormParams, ElicitResult } from "../protocol/schemas.js";

type ElicitContent = NonNullable<ElicitResult["content"]>;

export function applyElicitationDefaults(params: ElicitFormParams, result: ElicitResult): ElicitResult {
  if (result.action !== "accept") return result;
  const content: ElicitContent = { ...result.content };
  for (const [field, schema] of Object.entries(params.requestedSchema.properties)) {
    if (content[field] === undefined && schema.default !== undefined) {
      content[field] = schema.default as ElicitContent[string];
    }
  }
  return { ...result, content };
}
