/**
 * The image installs mcpwire with `npm ci --omit=dev`: every package the `mcpwire gateway`
 * command can load must then be a runtime dependency. Read from the built dist/, following every
 * static and dynamic import from dist/cli/main.js (the image's entry), as Node would.
 */
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./manifests.js";

const ENTRY = `${ROOT}dist/cli/main.js`;
const IMPORT = /(?:^|[;\s}])(?:import|export)\s*(?:[\w*{}\s,$]*?\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The bare specifiers (packages and builtins) reachable from `entry`, with a file that imports each; and the files reached. */
function reachablePackages(entry: string): { packages: Map<string, string>; files: Set<string> } {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith(".")) queue.push(resolve(dirname(file), specifier));
      else if (!packages.has(specifier)) packages.set(specifier, file.slice(ROOT.length));
    }
  }
  return { packages, files: seen };
}

/** `@scope/name/sub` is `@scope/name`; `name/sub` is `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

describe("the image's runtime dependencies", () => {
  it("cover every package the mcpwire command can load", () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} does not exist: run "npm run build" first`);
    const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { dependencies: Record<string, string> };
    const runtime = new Set(Object.keys(manifest.dependencies));
    const builtins = new Set(builtinModules);
    const { packages: reached, files } = reachablePackages(ENTRY);
    expect(reached.size).toBeGreaterThan(0);
    const missing = [...reached]
      .filter(([specifier]) => !specifier.startsWith("node:") && !builtins.has(specifier) && !runtime.has(packageName(specifier)))
      .map(([specifier, from]) => `${specifier} (from ${from})`);
    expect(missing).toEqual([]);
    // The gateway's command (a chunk of its own, loaded by \`mcpwire gateway\`) is among the files
    // reached: the check covers the command the image runs.
    expect([...files].some((file) => /dist\/chunks\/http-gateway-cli-\w+\.js$/.test(file))).toBe(true);
  });
});
