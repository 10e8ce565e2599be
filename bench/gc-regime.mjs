// Why mcpwire's stdio calls with 64 in flight cost more than the floor's, measured apart from
// everything else: mcpwire's own session over its stdio transport (no client layer, no result
// validation) against the benchmark server, with and without zod loaded (and not used), with and
// without V8's incremental marking. Each variant runs in its own process, alternating, several
// rounds; it prints CPU per call and the garbage collections seen.
//   npm run build && node bench/gc-regime.mjs
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = 100_000;
const VARIANTS = [
  { name: "session", flags: [], zod: false },
  { name: "session + zod loaded", flags: [], zod: true },
  { name: "session + zod loaded, no incremental marking", flags: ["--no-incremental-marking", "--no-concurrent-marking"], zod: true },
];

if (process.argv[2] === "--child") {
  const { TransportSession } = await import("../dist/session/session.js");
  const { StdioTransport } = await import("../dist/transport/stdio.js");
  const { PerformanceObserver, constants } = await import("node:perf_hooks");
  if (process.argv[3] === "zod") await (await import("../dist/protocol/schema-registry.js")).loadSchemas();
  const session = new TransportSession(new StdioTransport({ command: process.execPath, args: [`${here}servers/minimal-server.mjs`, "stdio"] }), {
    timeoutMs: 120_000,
  });
  await session.open();
  await session.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gc-regime", version: "1" } });
  await session.notify("notifications/initialized");
  const call = () => session.request("tools/call", { name: "echo", arguments: { text: "p".repeat(64) } });
  for (let i = 0; i < 5_000; i++) await call();
  const counts = { minor: 0, major: 0, gcMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      counts.gcMs += entry.duration;
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) counts.minor++;
      else if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) counts.major++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < CALLS) {
        next++;
        await call();
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the last gc entries
  observer.disconnect();
  await session.close();
  process.stdout.write(`${JSON.stringify({ microsPerCall: (used.user + used.system) / CALLS, ...counts })}\n`);
  process.exit(0);
}

function run(variant) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...variant.flags, fileURLToPath(import.meta.url), "--child", variant.zod ? "zod" : "none"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${variant.name} exited with ${code}`))));
  });
}

const results = new Map(VARIANTS.map((variant) => [variant.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of VARIANTS) results.get(variant.name).push(await run(variant));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`${CALLS} calls, 64 in flight, ${ROUNDS} rounds (medians), Node ${process.version}\n`);
console.log("| variant | CPU per call (µs) | minor GCs | major GCs | time in GC (ms) |\n| --- | --- | --- | --- | --- |");
for (const [name, runs] of results) {
  console.log(
    `| ${name} | ${median(runs.map((r) => r.microsPerCall)).toFixed(1)} | ${median(runs.map((r) => r.minor))} | ${median(runs.map((r) => r.major))} | ${median(runs.map((r) => r.gcMs)).toFixed(0)} |`,
  );
}
