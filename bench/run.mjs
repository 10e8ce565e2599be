// `npm run bench`: the same minimal server for every client, each client in its own process,
// alternating, several rounds; medians with min-max, mcpwire's ratio to every other client
// (mcpwire/X), a table on stdout and a JSON file in bench/results/. Then the cold start
// (cold-start.mjs): connect and first list in fresh processes, and whole short-lived programs.
// Last, the gateway (gateway-front.mjs, in a process of its own): mcpwire over stdio directly
// against mcpwire through `createGateway` over HTTP, with the ratios to the direct connection.
//
// `npm run bench:steady` (`--steady`): the same calls, timed once every client is warmed up
// (20 000 sequential calls, then 20 000 with 64 in flight, before the timed windows of 5 000 and
// 20 000), the floor and mcpwire only, 1 MiB messages only and no memory scenarios. The main
// table's short windows fall partly in each client's warm-up (`npm run bench:warm-up`); this one
// shows what a call costs once the optimizing compiler is done.
//
// Environment: BENCH_ROUNDS (3), BENCH_CLIENTS (floor,floor-undici,sdk,sdk2,aisdk,mcpwire), BENCH_TRANSPORTS
// (stdio,http-json,http-sse; empty for none), BENCH_COLD_ROUNDS (7; 0 for no cold start),
// BENCH_GATEWAY_ROUNDS (3; 0 for no gateway section), and the driver's BENCH_WARMUP, BENCH_SEQUENTIAL, BENCH_CONCURRENT,
// BENCH_CONCURRENT_WARMUP, BENCH_LARGE_MIB.
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { runColdStart } from "./cold-start.mjs";
import { startHttpServer } from "./servers/start-http-server.mjs";
import { summarize, tableHead, tableRow } from "./stats.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const STEADY = process.argv.includes("--steady");
const STEADY_WINDOWS = {
  BENCH_WARMUP: "20000",
  BENCH_SEQUENTIAL: "5000",
  BENCH_CONCURRENT_WARMUP: "20000",
  BENCH_CONCURRENT: "20000",
  BENCH_LARGE_MIB: "1",
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = (process.env.BENCH_CLIENTS ?? (STEADY ? "floor,floor-undici,mcpwire" : "floor,floor-undici,sdk,sdk2,aisdk,mcpwire")).split(",");
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? "stdio,http-json,http-sse").split(",").filter(Boolean);
// The cold-start section (see cold-start.mjs); BENCH_COLD_ROUNDS=0 leaves it out.
const COLD_ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? (STEADY ? 0 : 7));
// The gateway section (see gateway-front.mjs); BENCH_GATEWAY_ROUNDS=0 leaves it out.
const GATEWAY_ROUNDS = Number(process.env.BENCH_GATEWAY_ROUNDS ?? (STEADY ? 0 : 3));
const RUN_DEADLINE_MS = 300_000; // one client's whole scenario; a hang fails the run instead of the machine

/** Runs a bench script in a process of its own; resolves with its stdout and stderr, rejects on a failed exit or past the deadline. */
function runScript(args, env, label) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...env, NODE_NO_WARNINGS: undefined } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_DEADLINE_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${label} exited with ${code}: ${stderr.slice(-2000)}`));
      resolve({ stdout, stderr });
    });
  });
}

/** gateway-front.mjs in a process of its own (it runs on the sources, through tsx): its table, and its figures. */
async function runGatewayFront(rounds) {
  const env = { ...process.env, BENCH_ROUNDS: String(rounds), BENCH_GATEWAY_JSON: "1" };
  const { stdout } = await runScript(["--import", "tsx", `${here}gateway-front.mjs`], env, "gateway-front.mjs");
  const output = stdout.trim().split("\n");
  return { table: output.slice(0, -1), figures: JSON.parse(output.at(-1)) };
}

async function runClient(client, transport, target, scenario = "main") {
  // --expose-gc only where garbage is collected on purpose: the flag alone slows module loading.
  const flags = scenario === "main" ? [] : ["--expose-gc"];
  const env = { ...(STEADY ? STEADY_WINDOWS : {}), ...process.env };
  const { stdout, stderr } = await runScript([...flags, `${here}clients/driver.mjs`, client, transport, target, scenario], env, `${client} on ${transport} (${scenario})`);
  const figures = JSON.parse(stdout.trim().split("\n").at(-1));
  figures.warningLines = stderr.split("\n").filter((line) => /warning/i.test(line)).length;
  return figures;
}

const FIGURES = [
  ["importMs", "import (ms)"],
  ["coldConnectMs", "cold connect + first list (ms)"],
  ["seqCallsPerSec", "sequential calls/s"],
  ["seqP50Ms", "sequential p50 (ms)"],
  ["seqP99Ms", "sequential p99 (ms)"],
  ["seqCpuMicrosPerCall", "CPU per call, sequential (µs)"],
  ["seqMainThreadCpuMicrosPerCall", "  of which the main thread (µs)"],
  ["seqOtherThreadsCpuMicrosPerCall", "  of which V8's compiler and other threads (µs)"],
  ["concCallsPerSec", "64 in flight calls/s"],
  ["concCpuMicrosPerCall", "CPU per call, 64 in flight (µs)"],
  ["concMainThreadCpuMicrosPerCall", "  of which the main thread (µs)"],
  ["concOtherThreadsCpuMicrosPerCall", "  of which V8's compiler and other threads (µs)"],
  ["largeDown1MiBMs", "1 MiB reply (ms)"],
  ["largeDown4MiBMs", "4 MiB reply (ms)"],
  ["largeDown16MiBMs", "16 MiB reply (ms)"],
  ["largeUp1MiBMs", "1 MiB request (ms)"],
  ["largeUp4MiBMs", "4 MiB request (ms)"],
  ["largeUp16MiBMs", "16 MiB request (ms)"],
  ["peakRssInFlightMiB", "peak RSS through 64 in flight (MiB)"],
  ["idleRssMiB", "RSS before large messages (MiB)"],
  ["rssForReply16MiBMiB", "peak RSS above idle, one 16 MiB reply (MiB)"],
  ["rssForRequest16MiBMiB", "peak RSS above idle, one 16 MiB request (MiB)"],
  ["peakRssMiB", "peak RSS (MiB)"],
  ["warningLines", "warning lines printed"],
];

const results = {};
for (const transport of TRANSPORTS) {
  results[transport] = Object.fromEntries(CLIENTS.map((client) => [client, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order each round so no client always runs first (cold caches) or last.
    const order = CLIENTS.map((_, i) => CLIENTS[(i + round) % CLIENTS.length]);
    for (const client of order) {
      const server = transport === "stdio" ? undefined : await startHttpServer(transport);
      try {
        process.stderr.write(`round ${round + 1}/${ROUNDS} ${transport} ${client}\n`);
        const url = server?.url ?? "stdio";
        const figures = await runClient(client, transport, url);
        // A failure here (the SDK refuses 16 MiB by default) is a figure of its own, not the end of the run.
        for (const scenario of STEADY ? [] : ["memory-reply", "memory-request"]) {
          const key = scenario === "memory-reply" ? "rssForReply16MiBMiB" : "rssForRequest16MiBMiB";
          const memory = await runClient(client, transport, url, scenario).catch(() => ({ [key]: null }));
          figures[key] = memory[key];
        }
        results[transport][client].push(figures);
      } finally {
        await server?.stop();
      }
    }
  }
}

const summary = {};
const lines = [];
for (const transport of TRANSPORTS) {
  summary[transport] = {};
  lines.push(`\n### ${transport}\n`);
  lines.push(...tableHead(CLIENTS));
  for (const [key, title] of FIGURES) {
    const stats = Object.fromEntries(CLIENTS.map((client) => [client, summarize(results[transport][client].map((f) => f[key]))]));
    summary[transport][key] = stats;
    if (CLIENTS.every((client) => stats[client] === undefined)) continue; // not measured in this run
    lines.push(tableRow(title, CLIENTS, stats));
  }
}

if (COLD_ROUNDS > 0) {
  // Over stdio only, where the undici floor is the floor itself.
  const cold = await runColdStart({ clients: CLIENTS.filter((client) => client !== "floor-undici"), rounds: COLD_ROUNDS });
  summary.coldStart = cold.summary;
  results.coldStart = cold.raw;
  lines.push(...cold.lines);
}

if (GATEWAY_ROUNDS > 0) {
  const gateway = await runGatewayFront(GATEWAY_ROUNDS);
  summary.gateway = gateway.figures.summary;
  results.gateway = gateway.figures.raw;
  lines.push("\n### the gateway against a direct stdio connection (mcpwire both ways, one process)\n", ...gateway.table);
}

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}`;
const windowOf = (name) => process.env[name] ?? STEADY_WINDOWS[name];
const windows = STEADY
  ? `; steady state (after ${windowOf("BENCH_WARMUP")} sequential and ${windowOf("BENCH_CONCURRENT_WARMUP")} in-flight warm-up calls)`
  : "";
const sections = [
  TRANSPORTS.length > 0 ? `${ROUNDS} rounds` : "",
  COLD_ROUNDS > 0 ? `cold start ${COLD_ROUNDS} rounds` : "",
  GATEWAY_ROUNDS > 0 ? `gateway ${GATEWAY_ROUNDS} rounds` : "",
].filter(Boolean);
const header = `Benchmark ${new Date().toISOString()} on ${machine}; ${sections.join(", ")}, medians (min-max)${windows}.`;
process.stdout.write(`${header}\n${lines.join("\n")}\n`);
await mkdir(`${here}results`, { recursive: true });
const file = `${here}results/bench-${STEADY ? "steady-" : ""}${new Date().toISOString().replaceAll(":", "-")}.json`;
await writeFile(file, JSON.stringify({ header, machine, rounds: ROUNDS, summary, raw: results }, null, 2));
process.stdout.write(`\nJSON: ${file}\n`);
