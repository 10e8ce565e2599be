/**
 * The agent frameworks are optional peers: a user who imports `mcpwire` (or `mcpwire/sdk`) and
 * never `mcpwire/ai` or `mcpwire/langchain` must not need `ai` or `@langchain/core` installed.
 * This walks the import graph of each entry's sources (every import form, types included, since
 * a declaration file that names a missing package breaks the user's type check too).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; import: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

const OPTIONAL_PEERS = ["ai", "@langchain/core"];

/** The package a bare specifier names: "@langchain/core/tools" -> "@langchain/core". */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Every package the sources reachable from `entry` import, by the file that imports it. */
function packagesImportedFrom(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const queue = [resolve(ROOT, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, ".ts"));
        if (!existsSync(target)) throw new Error(`${file} imports ${specifier}, which has no source`);
        queue.push(target);
      } else if (!specifier.startsWith("node:")) {
        const name = packageOf(specifier);
        packages.set(name, [...(packages.get(name) ?? []), file.slice(ROOT.length)]);
      }
    }
  }
  return packages;
}

describe("optional peer dependencies", () => {
  it("declares ai and @langchain/core as optional peers", () => {
    expect(packageJson.peerDependencies).toMatchObject({ ai: "^6", "@langchain/core": "^1" });
    for (const peer of OPTIONAL_PEERS) expect(packageJson.peerDependenciesMeta[peer]?.optional).toBe(true);
  });

  it.each(["src/index.ts", "src/sdk.ts", "src/testing.ts"])("%s imports no optional peer and no dev-only package", (entry) => {
    const imported = packagesImportedFrom(entry);
    for (const peer of OPTIONAL_PEERS) expect(imported.get(peer), `${peer} imported by ${imported.get(peer)?.join(", ")}`).toBeUndefined();
    // Whatever the main graph needs must be a runtime dependency, or users would need a dev package.
    for (const [name, files] of imported) {
      expect(packageJson.dependencies[name], `${name} imported by ${files.join(", ")}`).toBeDefined();
    }
  });

  it.each([
    ["src/ai.ts", "ai"],
    ["src/langchain.ts", "@langchain/core"],
  ])("%s needs only the runtime dependencies and its own peer, %s", (entry, peer) => {
    const imported = packagesImportedFrom(entry);
    expect(imported.has(peer)).toBe(true);
    for (const [name, files] of imported) {
      if (name === peer) continue;
      expect(packageJson.dependencies[name], `${name} imported by ${files.join(", ")}`).toBeDefined();
    }
  });

  it("exports ./ai, ./langchain and ./sdk the same way as ./testing, each from a source entry", () => {
    for (const subpath of ["./ai", "./langchain", "./sdk"]) {
      const name = subpath.slice(2);
      expect(packageJson.exports[subpath]).toEqual({ types: `./dist/${name}.d.ts`, import: `./dist/${name}.js` });
      expect(existsSync(join(ROOT, "src", `${name}.ts`))).toBe(true);
    }
  });
});
