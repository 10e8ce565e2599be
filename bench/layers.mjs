// What each of mcpwire's layers adds to a call in the issue's windows, beside two floors:
//   floor         the bare client (newline JSON on a pipe, ids in a Map; over HTTP, node:http)
//   floor-kept    over stdio: the same with the four ceilings and a checked reply, written plainly
//   floor-undici  over HTTP: undici's request() on a keep-alive Pool, the engine under mcpwire's
//   transport     mcpwire's connection alone (clients/mcpwire-layer.mjs)
//   session       mcpwire's session over it
//   client        the whole client (McpClient.callTool: the result checked against its schema)
// Each in a process of its own, alternating, several rounds; medians (min-max) of the CPU per
// call with 64 in flight split by thread, and of the calls per second, with ratios to the floor.
//   npm run build && node bench/layers.mjs        (BENCH_ROUNDS, 5 by default)
// BENCH_TRANSPORT: stdio (the default), http-json or http-sse (a server of its own per run).
// The windows are driver.mjs's (BENCH_WARMUP, BENCH_SEQUENTIAL, BENCH_CONCURRENT apply).
// BENCH_NODE_FLAGS: V8 flags for every client's process, e.g. `--interrupt-budget=16896` (a
// quarter of Node 20's), which has V8 optimize each function after a quarter of the calls
// (bench/RESULTS.md, "One turn, one path").
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { withServer } from "./servers/start-http-server.mjs";
import { format, ratio, summarize } from "./stats.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DRIVER = fileURLToPath(new URL("clients/driver.mjs", import.meta.url));
const TRANSPORT = process.env.BENCH_TRANSPORT ?? "stdio";
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
if (!["stdio", "http-json", "http-sse"].includes(TRANSPORT)) throw new Error(`BENCH_TRANSPORT must be stdio, http-json or http-sse, got ${TRANSPORT}`);
const RUNS = [
  { name: "floor", client: "floor" },
  TRANSPORT === "stdio" ? { name: "floor-kept", client: "floor-kept" } : { name: "floor-undici", client: "floor-undici" },
  { name: "transport", client: "mcpwire-layer", layer: "transport" },
  { name: "session", client: "mcpwire-layer", layer: "session" },
  { name: "client", client: "mcpwire" },
];
const FIGURES = [
  ["concCpuMicrosPerCall", "CPU per call, 64 in flight (µs)"],
  ["concMainThreadCpuMicrosPerCall", "  of which the main thread (µs)"],
  ["concOtherThreadsCpuMicrosPerCall", "  of which V8's compiler and other threads (µs)"],
  ["concCallsPerSec", "64 in flight calls/s"],
  ["seqCpuMicrosPerCall", "CPU per call, sequential (µs)"],
  ["seqMainThreadCpuMicrosPerCall", "  of which the main thread (µs)"],
  ["seqOtherThreadsCpuMicrosPerCall", "  of which V8's compiler and other threads (µs)"],
  ["peakRssInFlightMiB", "peak RSS through 64 in flight (MiB)"],
];

function runOne(run) {
  return withServer(TRANSPORT, (target) => runDriver(run, target));
}

function runDriver({ client, layer }, target) {
  // Only the small messages: the large ones are the main bench's, and slow a round down.
  const env = { ...process.env, BENCH_LARGE_MIB: "", BENCH_LAYER: layer ?? "" };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...NODE_FLAGS, DRIVER, client, TRANSPORT, target], { env, timeout: 300_000 }, (error, stdout) => {
      if (error) reject(new Error(`${client}${layer ? ` (${layer})` : ""} failed: ${error.message}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)));
    });
  });
}

const results = Object.fromEntries(RUNS.map((run) => [run.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  // Each round starts with another run, so that none is always first or last.
  for (let i = 0; i < RUNS.length; i++) {
    const run = RUNS[(i + round) % RUNS.length];
    process.stderr.write(`round ${round + 1}/${ROUNDS} ${run.name}\n`);
    results[run.name].push(await runOne(run));
  }
}

const names = RUNS.map((run) => run.name);
const others = names.filter((name) => name !== "floor");
const flagNote = NODE_FLAGS.length > 0 ? `, flags ${NODE_FLAGS.join(" ")}` : "";
console.log(`Node ${process.version}, ${ROUNDS} rounds, medians (min-max), ${TRANSPORT}${flagNote}.\n`);
console.log(`| figure | ${names.join(" | ")} | ${others.map((name) => `${name}/floor`).join(" | ")} |`);
console.log(`| --- | ${names.map(() => "---").join(" | ")} | ${others.map(() => "---").join(" | ")} |`);
for (const [key, title] of FIGURES) {
  const stats = Object.fromEntries(names.map((name) => [name, summarize(results[name].map((figures) => figures[key]))]));
  if (names.every((name) => stats[name] === undefined)) continue; // not measured on this system
  const cells = names.map((name) => format(stats[name]));
  const ratios = others.map((name) => ratio(stats[name], stats.floor));
  console.log(`| ${title} | ${cells.join(" | ")} | ${ratios.join(" | ")} |`);
}
