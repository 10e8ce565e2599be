/**
 * The result schemas, loaded on first connect rather than when mcpwire is imported.
 *
 * The schema library and the schemas built with it take about 12 ms and 2 MiB to load; a program
 * that imports mcpwire (a CLI printing its help, a server that may never connect) should not pay
 * for them. `McpClient.connect()` awaits `loadSchemas()` before anything is validated, and every
 * validation after that reads them synchronously through `schemas()`, or `schemasOf(era)` for
 * the shapes that differ by era.
 */
import type { Infer, Type } from "./valita.js";
import type * as CoreSchemas from "./schemas.js";
import type * as ModernSchemas from "./modern-schemas.js";
import type * as TaskSchemas from "./task-schemas.js";

type Modern = typeof ModernSchemas;

/**
 * The schemas revision 2026-07-28 loosens (a tool's `outputSchema` may be any JSON Schema, its
 * `structuredContent` any JSON value), by the name the client reads them under: typed as that
 * revision's, the wider, so that one name serves both eras.
 */
interface ByEra {
  ListToolsResultSchema: Type<Infer<Modern["ModernListToolsResultSchema"]>>;
  CallToolResultSchema: Type<Infer<Modern["ModernCallToolResultSchema"]>>;
  CreateMessageParamsSchema: Type<Infer<Modern["ModernCreateMessageParamsSchema"]>>;
}

export type Schemas = Omit<typeof CoreSchemas, keyof ByEra> & ByEra & Modern & typeof TaskSchemas;

/** Which rules a message is read by: revisions up to 2025-11-25, or 2026-07-28 (the client's `EraName`). */
export type SchemaEra = "legacy" | "modern";

let loaded: Record<SchemaEra, Schemas> | undefined;
let loading: Promise<Schemas> | undefined;

export function loadSchemas(): Promise<Schemas> {
  loading ??= Promise.all([import("./schemas.js"), import("./modern-schemas.js"), import("./task-schemas.js")]).then(([core, modern, tasks]) => {
    const legacy: Schemas = { ...core, ...modern, ...tasks };
    loaded = {
      legacy,
      modern: {
        ...legacy,
        ListToolsResultSchema: modern.ModernListToolsResultSchema,
        CallToolResultSchema: modern.ModernCallToolResultSchema,
        CreateMessageParamsSchema: modern.ModernCreateMessageParamsSchema,
      },
    };
    return legacy;
  });
  return loading;
}

/** The schemas, once `loadSchemas()` has resolved (every connect awaits it first): the legacy era's rules. */
export function schemas(): Schemas {
  return schemasOf("legacy");
}

/** The schemas of one era: the same names, each read by that era's rules. */
export function schemasOf(era: SchemaEra): Schemas {
  if (!loaded) throw new Error("mcpwire: a result was validated before the schemas were loaded; await client.connect() first");
  return loaded[era];
}
