// Runs one benchmark scenario for one client in this process and prints one JSON line of figures.
//   node [--expose-gc] bench/clients/driver.mjs <client> <transport> <server-url-or-"stdio"> [scenario]
// <client> names a module in this folder (floor, sdk, mcpwire) exporting `load()`, which imports
// the client's package (timed as "import") and returns `{ connect(target) }`.
// Scenarios: "main" (the default: every timed figure), and "memory-reply" / "memory-request",
// which measure the peak RSS one 16 MiB message costs, in a process that has done nothing else
// large (in "main", the earlier messages' garbage and the benchmark's own payloads count too).
import { writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { recordThreadCpu, threadCpu } from "../thread-cpu.mjs";
import { inFlight } from "../in-flight.mjs";

const [clientName, transport, target, scenario = "main"] = process.argv.slice(2);
const SERVER = new URL("../servers/minimal-server.mjs", import.meta.url).pathname;
const PAYLOAD = "p".repeat(64);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 10000);
// Untimed calls with 64 in flight before the timed ones (none by default, as the windows
// have it): a client's code first optimized for one call at a time is optimized again once calls
// overlap, and this keeps that out of the timed window when the steady state is what is measured.
const CONCURRENT_WARMUP = Number(process.env.BENCH_CONCURRENT_WARMUP ?? 0);
const IN_FLIGHT = 64;
// Empty for none.
const LARGE_MIB = (process.env.BENCH_LARGE_MIB ?? "1,4,16").split(",").filter(Boolean).map(Number);

// BENCH_MARK_WINDOWS=1: a line "=== window <name> start|end" on stdout around the timed windows,
// written at once, so that V8's traces on the same stdout can be cut by window (window-compiles.mjs).
const MARK_WINDOWS = process.env.BENCH_MARK_WINDOWS === "1";
function mark(window, edge) {
  if (MARK_WINDOWS) writeSync(1, `=== window ${window} ${edge}\n`);
}

let warnings = 0;
process.on("warning", () => warnings++);

function cpuMicros(since) {
  const usage = process.cpuUsage(since);
  return usage.user + usage.system;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

const figures = { client: clientName, transport };
const module = await import(`./${clientName}.mjs`);

let start = performance.now();
const client = await module.load();
figures.importMs = performance.now() - start;

const serverTarget = transport === "stdio" ? { command: process.execPath, args: [SERVER, "stdio"] } : { url: target };

start = performance.now();
const session = await client.connect(serverTarget);
await session.listTools();
figures.coldConnectMs = performance.now() - start;

if (scenario === "memory-reply" || scenario === "memory-request") {
  await measureMemory(scenario.slice("memory-".length));
  process.exit(0);
}

for (let i = 0; i < WARMUP; i++) await session.call("echo", { text: PAYLOAD });

const latencies = new Float64Array(SEQUENTIAL);
mark("sequential", "start");
let threads = threadCpu();
let cpu = process.cpuUsage();
start = performance.now();
for (let i = 0; i < SEQUENTIAL; i++) {
  const t = performance.now();
  await session.call("echo", { text: PAYLOAD });
  latencies[i] = performance.now() - t;
}
let elapsed = performance.now() - start;
mark("sequential", "end");
figures.seqCallsPerSec = (SEQUENTIAL / elapsed) * 1000;
figures.seqCpuMicrosPerCall = cpuMicros(cpu) / SEQUENTIAL;
recordThreadCpu(figures, "seq", threads, SEQUENTIAL);
const sorted = Array.from(latencies).sort((a, b) => a - b);
figures.seqP50Ms = percentile(sorted, 50);
figures.seqP99Ms = percentile(sorted, 99);

const echo = () => session.call("echo", { text: PAYLOAD });
if (CONCURRENT_WARMUP > 0) await inFlight(echo, CONCURRENT_WARMUP, IN_FLIGHT);
mark("concurrent", "start");
threads = threadCpu();
cpu = process.cpuUsage();
start = performance.now();
await inFlight(echo, CONCURRENT, IN_FLIGHT);
elapsed = performance.now() - start;
mark("concurrent", "end");
figures.concCallsPerSec = (CONCURRENT / elapsed) * 1000;
figures.concCpuMicrosPerCall = cpuMicros(cpu) / CONCURRENT;
recordThreadCpu(figures, "conc", threads, CONCURRENT);
// The high-water mark so far: import, connect and every call, nothing large yet (issue 20's
// "peak RSS through 64 in flight"; the large messages below raise the later peaks).
figures.peakRssInFlightMiB = process.resourceUsage().maxRSS / 1024;

figures.idleRssMiB = process.memoryUsage().rss / 2 ** 20;
for (const mib of LARGE_MIB) {
  const bytes = mib * 2 ** 20;
  for (const [direction, call] of [
    ["down", () => session.call("blob", { bytes })],
    ["up", () => session.call("sink", { text: "u".repeat(bytes) })],
  ]) {
    const key = `large${direction === "down" ? "Down" : "Up"}${mib}MiBMs`;
    try {
      start = performance.now();
      await call();
      figures[key] = performance.now() - start;
    } catch (error) {
      figures[key] = null;
      figures[`${key}Error`] = String(error?.message ?? error).slice(0, 120);
    }
  }
  figures[`peakRssAfter${mib}MiBMiB`] = process.resourceUsage().maxRSS / 1024;
}

await session.close();
figures.peakRssMiB = process.resourceUsage().maxRSS / 1024;
figures.warningEvents = warnings;
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);

/**
 * Peak RSS above the RSS just before, for one 16 MiB reply or one 16 MiB request (one per
 * process: the peak is the process's high-water mark). A request's text is built, flat, before
 * "before" is read: it is the caller's, not the client's. Garbage is collected first.
 */
async function measureMemory(direction) {
  const bytes = 16 * 2 ** 20;
  for (let i = 0; i < 200; i++) await session.call("echo", { text: PAYLOAD });
  const text = direction === "request" ? Buffer.alloc(bytes, "u").toString("latin1") : undefined;
  globalThis.gc?.();
  const before = process.memoryUsage().rss / 2 ** 20;
  if (text === undefined) await session.call("blob", { bytes });
  else await session.call("sink", { text });
  const key = direction === "request" ? "rssForRequest16MiBMiB" : "rssForReply16MiBMiB";
  const figures = { client: clientName, transport, [key]: process.resourceUsage().maxRSS / 1024 - before };
  await session.close();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
