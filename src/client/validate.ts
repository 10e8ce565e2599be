/** Checks a result against its schema: a typed value, or a PROTOCOL failure that names the field. */
import type { Infer, Issue, Type } from "../protocol/valita.js";
import { McpTransportError } from "../errors.js";

export function parseResult<S extends Type>(schema: S, value: unknown, label: string, where: string): Infer<S> {
  const parsed = schema.try(value);
  if (parsed.ok) return parsed.value as Infer<S>;
  return failInvalid(label, where, "the MCP schema", parsed.issues.map(asStandardIssue), parsed.issues);
}

/** `value` checked against one of the MCP schemas: the typed value, or undefined when it does not match. */
export function matching<S extends Type>(schema: S, value: unknown): Infer<S> | undefined {
  const parsed = schema.try(value);
  return parsed.ok ? (parsed.value as Infer<S>) : undefined;
}

/**
 * A schema issue in our words: what the schema expects (a type, one of our literals, a rule of
 * the method), never the value the server sent.
 */
function asStandardIssue(issue: Issue): StandardIssue {
  return { message: expectation(issue), path: issue.path };
}

function expectation(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected.join(" or ")}`;
    case "invalid_literal":
      return `expected ${issue.expected.map((literal) => JSON.stringify(literal)).join(" or ")}`;
    case "missing_value":
      return "missing";
    case "invalid_union":
      return "matches none of the forms it may take";
    case "custom_error":
      return issue.message ?? "invalid";
    default:
      // invalid_length and unrecognized_keys: tuples and strict objects, which the MCP schemas do not use.
      return "invalid";
  }
}

/**
 * The part of the Standard Schema interface (https://standardschema.dev, version 1) that
 * `request()` uses: zod (3.24 and later, 4), valibot, ArkType and others implement it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] };

interface StandardIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** Whether `value` has the shape of a Standard Schema, so that a wrong option fails where it is given. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as Partial<StandardSchemaV1>)["~standard"];
  return typeof props === "object" && props !== null && props.version === 1 && typeof props.validate === "function";
}

/** `value` checked with a caller's schema; a mismatch is a PROTOCOL failure naming `label` and the first failing path. */
export async function parseWithSchema<T>(schema: StandardSchemaV1<unknown, T>, value: unknown, label: string, where: string): Promise<T> {
  const outcome = await schema["~standard"].validate(value);
  if (outcome.issues === undefined) return outcome.value;
  return failInvalid(label, where, "the schema given to it", outcome.issues, outcome.issues);
}

function failInvalid(label: string, where: string, against: string, issues: readonly StandardIssue[], cause: unknown): never {
  const issue = issues[0];
  const path = issue?.path?.length ? issue.path.map((part) => String(typeof part === "object" ? part.key : part)).join(".") : "(the result itself)";
  // The schema's text describes our expectation (a type, a field name), never the server's own words.
  throw new McpTransportError("PROTOCOL", `${label} returned a result that does not match ${against} at ${path}: ${issue?.message ?? "invalid"} (${where})`, {
    cause,
  });
}
