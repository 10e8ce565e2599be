/** Checks a result against its schema: a typed value, or a PROTOCOL failure that names the field. */
import type { z } from "zod";
import { McpTransportError } from "../errors.js";

export function parseResult<S extends z.ZodType>(
  schema: S,
  value: unknown,
  label: string,
  where: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue && issue.path.length > 0 ? issue.path.join(".") : "(the result itself)";
  return failInvalid(label, where, `${path}: ${issue?.message ?? "invalid"}`, parsed.error);
}

function failInvalid(label: string, where: string, what: string, cause: unknown): never {
  // zod's text describes our expectation (a type, a field name), never the server's own words.
  throw new McpTransportError("PROTOCOL", `${label} returned a result that does not match the MCP schema at ${what} (${where})`, {
    cause,
  });
}
