// What V8 compiles, and what optimized code it throws away, inside each timed window of a stdio
// run: the sequential calls and the calls with 64 in flight (bench/RESULTS.md, "One path whether
// calls overlap or not"). Each client runs driver.mjs under --trace-opt --trace-deopt, with the
// windows marked on the same stdout (BENCH_MARK_WINDOWS=1); the traces between the marks are
// summed per window.
//   npm run build && node bench/window-compiles.mjs     (Linux: needs stdbuf, from coreutils)
// Environment: BENCH_CLIENTS (floor,floor-kept,mcpwire), BENCH_ROUNDS (2), BENCH_TRANSPORT
// (stdio, http-json or http-sse; floor-kept is a stdio client only), and the driver's
// BENCH_WARMUP, BENCH_SEQUENTIAL, BENCH_CONCURRENT, BENCH_CONCURRENT_WARMUP, BENCH_LAYER.
// The driver's own loop is a function of the benchmark's, shown as "(anonymous)" like any
// function without a name; it is compiled for every client alike.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { withServer } from "./servers/start-http-server.mjs";

const CLIENTS = (process.env.BENCH_CLIENTS ?? "floor,floor-kept,mcpwire").split(",").filter(Boolean);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DRIVER = fileURLToPath(new URL("clients/driver.mjs", import.meta.url));
const WINDOWS = ["sequential", "concurrent"];
const TOP = 8;
const TRANSPORT = process.env.BENCH_TRANSPORT ?? "stdio";
const TRANSPORTS = ["stdio", "http-json", "http-sse"];
if (!TRANSPORTS.includes(TRANSPORT)) throw new Error(`BENCH_TRANSPORT must be one of ${TRANSPORTS.join(", ")}, got ${TRANSPORT}`);

/** One run's trace, against a server of its own. */
function trace(client) {
  return withServer(TRANSPORT, (target) => traceDriver(client, target));
}

/** The driver's stdout, with V8's lines flushed one by one (stdbuf), so that they interleave with the marks. */
function traceDriver(client, target) {
  const env = { ...process.env, BENCH_MARK_WINDOWS: "1", BENCH_LARGE_MIB: "" };
  const args = ["-oL", process.execPath, "--trace-opt", "--trace-deopt", DRIVER, client, TRANSPORT, target];
  return new Promise((resolve, reject) => {
    execFile("stdbuf", args, { env, timeout: 300_000, maxBuffer: 256 * 2 ** 20 }, (error, stdout) => {
      if (error?.code === "ENOENT") reject(new Error("stdbuf was not found: this benchmark needs Linux's coreutils"));
      else if (error) reject(new Error(`${client} failed: ${error.message}`));
      else resolve(stdout);
    });
  });
}

const DEOPT = /^\[bailout \(kind: [^,]+, reason: (.*?)\): begin\. deoptimizing \S+ <JSFunction ?([^ >]*)/;
const COMPILED = /^\[completed compiling \S+ <JSFunction ?([^ >]*).*?\(target ([A-Z_]+)\) - took [\d.]+, ([\d.]+), [\d.]+ ms\]/;

/** A function's name in a trace line; V8 prints "(sfi = …)" in its place for one without a name. */
function nameOf(traced) {
  return traced && !traced.startsWith("(") ? traced : "(anonymous)";
}

/** Per window: the deopts (function: reason) and the compiler thread's ms by tier and by function. */
function readWindows(stdout) {
  const windows = Object.fromEntries(WINDOWS.map((name) => [name, { deopts: [], msByTier: {}, msByFunction: {} }]));
  let current;
  for (const line of stdout.split("\n")) {
    const mark = /^=== window (\w+) (start|end)$/.exec(line);
    if (mark) {
      current = mark[2] === "start" ? windows[mark[1]] : undefined;
      continue;
    }
    if (!current) continue;
    const deopt = DEOPT.exec(line);
    if (deopt) current.deopts.push(`${nameOf(deopt[2])}: ${deopt[1]}`);
    const compiled = COMPILED.exec(line);
    if (compiled) {
      const [, name, tier, ms] = compiled;
      const tierName = tier.startsWith("TURBOFAN") ? "TurboFan" : tier === "MAGLEV" ? "Maglev" : tier;
      current.msByTier[tierName] = (current.msByTier[tierName] ?? 0) + Number(ms);
      const key = `${nameOf(name)} (${tierName})`;
      current.msByFunction[key] = (current.msByFunction[key] ?? 0) + Number(ms);
    }
  }
  return windows;
}

console.log(`Node ${process.version}, ${ROUNDS} rounds per client, ${TRANSPORT}; ms on the compiler's thread per window, each round.\n`);
for (const client of CLIENTS) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`round ${round + 1}/${ROUNDS} ${client}\n`);
    rounds.push(readWindows(await trace(client)));
  }
  console.log(`## ${client}${process.env.BENCH_LAYER ? ` (BENCH_LAYER=${process.env.BENCH_LAYER})` : ""}\n`);
  for (const window of WINDOWS) {
    const perRound = rounds.map((windows) => windows[window]);
    const tiers = [...new Set(perRound.flatMap((w) => Object.keys(w.msByTier)))];
    const tierText = tiers.map((tier) => `${tier} ${perRound.map((w) => (w.msByTier[tier] ?? 0).toFixed(0)).join(", ")} ms`).join("; ");
    console.log(`### ${window} window: ${tierText || "nothing compiled"}\n`);
    const deopts = new Map();
    for (const w of perRound) for (const deopt of w.deopts) deopts.set(deopt, (deopts.get(deopt) ?? 0) + 1);
    console.log(deopts.size === 0 ? "Optimized code thrown away: none." : "Optimized code thrown away (function: V8's reason, in how many rounds):");
    for (const [deopt, count] of deopts) console.log(`- ${deopt} (${count}/${ROUNDS})`);
    const total = {};
    for (const w of perRound) for (const [key, ms] of Object.entries(w.msByFunction)) total[key] = (total[key] ?? 0) + ms / ROUNDS;
    const top = Object.entries(total).sort((a, b) => b[1] - a[1]).slice(0, TOP);
    if (top.length > 0) {
      console.log(`\nMost compiled (ms a round, mean):`);
      for (const [key, ms] of top) console.log(`- ${key}: ${ms.toFixed(1)}`);
    }
    console.log("");
  }
}
