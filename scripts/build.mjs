// `npm run build`: dist/ from src/, in three steps.
//
// 1. dist/ is emptied, so that nothing of an earlier build is left to be imported by mistake.
// 2. tsc writes the type declarations (dist/**/*.d.ts, with maps to src/), one per source file,
//    as tsconfig.build.json says; it also type-checks the sources.
// 3. esbuild writes the JavaScript: one file per entry of package.json's `exports` and `bin`, and
//    the code they share, or load later, in dist/chunks/. Node loads a module graph of ~200 files
//    in about 155 ms and 17 MiB; the same code in about twenty files takes about 50 ms and 11 MiB
//    (bench/RESULTS.md, "The schemas without zod, and one file to load"). What is loaded later
//    (the schemas, the gateway's commands, its serving parts, the bridge's relay) stays in chunks
//    of its own, behind its dynamic import; packages stay external.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

/**
 * The modules users and the `mcpwire` command start from, built together: the command shares the
 * library's modules (a transport registered by a module given to `--import` is in the same
 * registry, an error is the same McpTransportError). Each keeps its path under dist/.
 */
const ENTRY_POINTS = ["src/index.ts", "src/testing.ts", "src/ai.ts", "src/langchain.ts", "src/sdk.ts", "src/cli/main.ts"];

rmSync(`${root}dist`, { recursive: true, force: true });

const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8"));
await build({
  absWorkingDir: root,
  entryPoints: ENTRY_POINTS,
  outdir: "dist",
  outbase: "src",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Dependencies are installed beside mcpwire and loaded from there, some of them lazily.
  packages: "external",
  sourcemap: true,
  // No keepNames: it wraps every function made at run time, closures on the hot path included, in
  // a call that sets its name (about 3 µs of an HTTP call in flight). Names stay as written but
  // where a class names itself inside its body (`class _X`): no exported class does, which
  // test/build/dist.test.ts checks.
  define: { MCPWIRE_PACKAGE_VERSION: JSON.stringify(version) },
  logLevel: "warning",
});
