/**
 * The schema library the MCP shapes are written with (valita), and the two forms every shape
 * uses: an object that keeps the fields it does not name, and a closed set of strings.
 *
 * Only the schema modules import this file, and they load on the first connect
 * (schema-registry.ts), so importing mcpwire loads no schema library.
 *
 * valita is taken through `require`: its ES entry is a wrapper over the same CommonJS build, and
 * importing it that way starts Node's CommonJS export scanner, about 5 ms and 6 MiB more on the
 * first connect than the build itself (bench/RESULTS.md, "The schemas without zod, and one
 * file to load").
 */
import { createRequire } from "node:module";
import type * as Valita from "@badrap/valita";

export const v = createRequire(import.meta.url)("@badrap/valita") as typeof Valita;

export type { Infer, Type } from "@badrap/valita";

/** One failure of a check, with its path. */
export type Issue = Valita.Err["issues"][number];

/** What a field of an object may be checked with. */
type Field = Valita.Type | Valita.Optional;

/**
 * An object whose named fields are checked and whose other fields are kept as they came: every
 * revision adds optional fields, and `_meta` may carry anything. Arrays are not objects here.
 */
export function loose<S extends Record<string, Field>>(shape: S) {
  return v.object(shape).rest(v.unknown());
}

/** One of the given strings, and nothing else. */
export function oneOf<const T extends readonly [string, ...string[]]>(...values: T): Valita.Type<T[number]> {
  return v.union(...values.map((value) => v.literal(value))) as Valita.Type<T[number]>;
}
