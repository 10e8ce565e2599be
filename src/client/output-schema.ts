/**
 * Checked structured output (server/tools, "Output Schema"): a tool that declares an
 * `outputSchema` must return `structuredContent` that conforms to it, and the client checks it.
 *
 * The schemas are those of the latest tool list, kept by the client's `ToolCatalog` (listed on
 * demand for a tool not seen yet, forgotten on a list change or a reconnection: the server may
 * have changed while it was away). Each tool's schema is compiled once and kept until its tool
 * list changes.
 *
 * The validator, `@cfworker/json-schema`, is imported on the first check only, so that importing
 * mcpwire costs nothing for it (see the README's runtime dependencies for why this one). Only
 * references within the schema resolve: a `$ref` to anything else is a failure that says so,
 * never a request over the network.
 */
import type * as JsonSchemaValidator from "@cfworker/json-schema";
import type { OutputUnit, Schema, SchemaDraft, ValidationResult } from "@cfworker/json-schema";
import { McpTransportError } from "../errors.js";
import type { CallToolResult, Tool } from "../protocol/schemas.js";
import type { ToolCatalog } from "./tool-catalog.js";

type ValidatorModule = typeof JsonSchemaValidator;

let validatorModule: Promise<ValidatorModule> | undefined;

function loadValidator(): Promise<ValidatorModule> {
  validatorModule ??= import("@cfworker/json-schema");
  return validatorModule;
}

type JsonSchema = Record<string, unknown>;

/** A compiled schema: the check of a value, or why the schema cannot check anything. */
interface Compiled {
  /** The schema as the server sent it, and its text, to know it again in a later listing. */
  schema: JsonSchema;
  text: string;
  check: ((value: unknown) => ValidationResult) | undefined;
  unusable: string | undefined;
}

/** The base of relative references: a host that does not exist, so that nothing could be reached. */
const BASE_URI = new URL("https://output-schema.invalid/");

/** `$schema` values (without a trailing `#`, either scheme) and the draft the validator runs. */
const DIALECTS: ReadonlyMap<string, SchemaDraft> = new Map([
  ["json-schema.org/draft/2020-12/schema", "2020-12"],
  ["json-schema.org/draft/2019-09/schema", "2019-09"],
  ["json-schema.org/draft-07/schema", "7"],
  ["json-schema.org/draft-06/schema", "7"],
  ["json-schema.org/draft-04/schema", "4"],
]);

/**
 * Keywords whose failure is the failure of a subschema, reported right after it: the first
 * failing path is found by following them down to the keyword that failed by itself.
 */
const BY_SUBSCHEMA = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "dependentSchemas",
  "dependencies",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "then",
  "else",
]);

const MAX_PATH_CHARS = 120;

/** The output schemas of one client's tools (from its `ToolCatalog`), and their compiled checks. */
export class OutputSchemas {
  private readonly compiled = new Map<string, Compiled>();

  constructor(private readonly catalog: ToolCatalog) {}

  /**
   * A listing was remembered in the catalog: a compiled check is kept for a tool whose schema
   * reads the same as before, and dropped for the others (and, after a whole listing, for tools
   * it no longer names).
   */
  refresh(tools: readonly Tool[], whole: boolean): void {
    if (whole) {
      const named = new Set(tools.map((tool) => tool.name));
      for (const name of [...this.compiled.keys()]) {
        if (!named.has(name)) this.compiled.delete(name);
      }
    }
    for (const tool of tools) {
      const compiled = this.compiled.get(tool.name);
      if (!compiled) continue;
      const schema = (tool.outputSchema as JsonSchema | undefined) ?? null;
      if (schema !== null && JSON.stringify(schema) === compiled.text) compiled.schema = schema;
      else this.compiled.delete(tool.name);
    }
  }

  /** The server's tool list changed, or the client reconnected: every schema and compiled check is stale. */
  forget(): void {
    this.compiled.clear();
  }

  /**
   * Checks a result that is not an `isError` one against `schema`, the tool's output schema:
   * PROTOCOL (kind `output_schema`) when there is no `structuredContent` or it does not conform.
   * Whatever JSON value it is (any, in revision 2026-07-28: an array, a string, null) is checked.
   */
  async check(name: string, schema: JsonSchema, result: CallToolResult, label: string, where: string): Promise<void> {
    if (result.structuredContent === undefined) {
      throw failure(`${label} returned no structuredContent, though the tool declares an outputSchema (${where})`);
    }
    const validator = await loadValidator();
    let compiled = this.compiled.get(name);
    if (compiled?.schema !== schema) {
      compiled = compile(validator, schema);
      if (this.catalog.known(name)?.outputSchema === schema) this.compiled.set(name, compiled);
    }
    if (compiled.unusable !== undefined) throw failure(`${label}: the tool's outputSchema ${compiled.unusable} (${where})`);
    let checked: ValidationResult;
    try {
      checked = compiled.check!(result.structuredContent);
    } catch (error) {
      throw failure(`${label}: the tool's outputSchema could not be checked (${where})`, error);
    }
    if (checked.valid) return;
    const first = firstFailure(checked.errors);
    throw failure(
      `${label} returned structuredContent that does not match the tool's outputSchema at ${pathOf(first.instanceLocation)} ` +
        `(keyword ${first.keyword}) (${where})`,
    );
  }
}

/** Refuses a `validateOutput` that is not a boolean. */
export function checkValidateOutput(value: unknown, where: string): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  throw new TypeError(`${where}: "validateOutput" must be true or false, got ${JSON.stringify(value) ?? typeof value}`);
}

function failure(message: string, cause?: unknown): McpTransportError {
  return new McpTransportError("PROTOCOL", message, { kind: "output_schema", method: "tools/call", cause });
}

function compile(validator: ValidatorModule, schema: JsonSchema): Compiled {
  const text = JSON.stringify(schema);
  const unusable = (why: string): Compiled => ({ schema, text, check: undefined, unusable: why });
  const dialect = schema.$schema;
  let draft: SchemaDraft = "2020-12";
  if (dialect !== undefined) {
    const known = typeof dialect === "string" ? DIALECTS.get(dialect.replace(/^https?:\/\//, "").replace(/#$/, "")) : undefined;
    if (known === undefined) return unusable("declares a JSON Schema dialect mcpwire does not check (it checks 2020-12, 2019-09, draft-07 and draft-04)");
    draft = known;
  }
  // The validator marks the schema's objects as it reads them: it reads a copy.
  const copy = structuredClone(schema) as Schema;
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = validator.dereference(copy, Object.create(null) as Record<string, Schema | boolean>, BASE_URI);
  } catch {
    return unusable("cannot be read as a JSON Schema (a duplicate $id or a malformed URI)");
  }
  const outside = firstOutsideRef(copy, lookup);
  if (outside !== undefined) {
    return unusable(
      `has a $ref at ${outside} to a schema that is not within it; only references within the schema resolve, remote ones are never fetched`,
    );
  }
  return { schema, text, unusable: undefined, check: (value) => validator.validate(value, copy, draft, lookup, true) };
}

/**
 * Where (a JSON pointer into the schema) the first `$ref` is that resolves to nothing the schema
 * holds. The validator marks each schema object it visited with the absolute reference; objects
 * inside `const`, `enum` or `default` are data and carry no mark.
 */
function firstOutsideRef(schema: unknown, lookup: Record<string, Schema | boolean>, pointer = ""): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const marked = schema as { __absolute_ref__?: string; __absolute_recursive_ref__?: string };
  for (const [reference, keyword] of [
    [marked.__absolute_ref__, "$ref"],
    [marked.__absolute_recursive_ref__, "$recursiveRef"],
  ] as const) {
    if (reference !== undefined && lookup[reference] === undefined) return `${pointer}/${keyword}`;
  }
  for (const [key, value] of Object.entries(schema)) {
    const found = firstOutsideRef(value, lookup, `${pointer}/${encodeURI(key.replace(/~/g, "~0").replace(/\//g, "~1"))}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The error to report: the first one, followed down through the subschemas that failed with it. */
function firstFailure(errors: readonly OutputUnit[]): OutputUnit {
  let at = errors[0] ?? { instanceLocation: "#", keyword: "false", keywordLocation: "#", error: "" };
  for (const next of errors.slice(1)) {
    if (!BY_SUBSCHEMA.has(at.keyword) || !next.keywordLocation.startsWith(`${at.keywordLocation}/`)) break;
    at = next;
  }
  return at;
}

/**
 * The validator's instance location (`#/items/1/id`, percent-encoded, so no control character or
 * other raw text of the server's gets through) as a JSON pointer into `structuredContent`.
 */
function pathOf(location: string): string {
  const pointer = location.replace(/^#/, "");
  if (pointer === "") return "the root of structuredContent";
  return pointer.length > MAX_PATH_CHARS ? `${pointer.slice(0, MAX_PATH_CHARS - 3)}...` : pointer;
}
