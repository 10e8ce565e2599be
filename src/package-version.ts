/**
 * mcpwire's version, as package.json gives it: the `clientInfo` mcpwire introduces itself with,
 * `mcpwire --version`, the gateway's metrics and its children's `clientInfo`.
 *
 * The build writes it in (scripts/build.mjs defines `MCPWIRE_PACKAGE_VERSION`), since the built
 * code sits in chunks at no fixed depth below package.json; run from the sources (tests, tsx),
 * it is read from package.json beside src/.
 */
import { createRequire } from "node:module";

declare const MCPWIRE_PACKAGE_VERSION: string | undefined;

export const PACKAGE_VERSION: string =
  typeof MCPWIRE_PACKAGE_VERSION === "string"
    ? MCPWIRE_PACKAGE_VERSION
    : (createRequire(import.meta.url)("../package.json") as { version: string }).version;
