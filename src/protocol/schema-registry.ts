/**
 * The result schemas, loaded on first connect rather than when mcpwire is imported.
 *
 * The schema library and the schemas built with it take about 12 ms and 2 MiB to load; a program
 * that imports mcpwire (a CLI printing its help, a server that may never connect) should not pay
 * for them. `McpClient.connect()` awaits `loadSchemas()` before anything is validated, and every
 * validation after that reads them synchronously through `schemas()`.
 */
import type * as CoreSchemas from "./schemas.js";
import type * as ModernSchemas from "./modern-schemas.js";
import type * as TaskSchemas from "./task-schemas.js";

export type Schemas = typeof CoreSchemas & typeof ModernSchemas & typeof TaskSchemas;

let loaded: Schemas | undefined;
let loading: Promise<Schemas> | undefined;

export function loadSchemas(): Promise<Schemas> {
  loading ??= Promise.all([import("./schemas.js"), import("./modern-schemas.js"), import("./task-schemas.js")]).then(([core, modern, tasks]) => {
    loaded = { ...core, ...modern, ...tasks };
    return loaded;
  });
  return loading;
}

/** The schemas, once `loadSchemas()` has resolved (every connect awaits it first). */
export function schemas(): Schemas {
  if (!loaded) throw new Error("mcpwire: a result was validated before the schemas were loaded; await client.connect() first");
  return loaded;
}
