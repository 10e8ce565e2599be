/**
 * `jose` is loaded the first time a flow signs something (a DPoP proof, a client assertion), never
 * by `import "mcpwire"`: no source imports it at the top except for types, and the one dynamic
 * import is in src/auth/jose.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(folder, entry.name)) : entry.name.endsWith(".ts") ? [join(folder, entry.name)] : [],
  );
}

describe("jose is loaded lazily", () => {
  it("is imported at the top only for its types, and dynamically only by auth/jose.ts", () => {
    const valueImports: string[] = [];
    const dynamicImports: string[] = [];
    for (const file of sources(SRC)) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"jose(?:\/[^"]*)?";/gms)) {
        if (match[1] === undefined) valueImports.push(relative(SRC, file));
      }
      if (/import\(\s*"jose/.test(text)) dynamicImports.push(relative(SRC, file));
    }
    expect(valueImports).toEqual([]);
    expect(dynamicImports).toEqual([join("auth", "jose.ts")]);
  });

  it("is a runtime dependency, since flows load it", () => {
    const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { dependencies: Record<string, string> };
    expect(packageJson.dependencies.jose).toBeDefined();
  });
});
