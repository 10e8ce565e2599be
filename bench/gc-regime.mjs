// What a table of requests in flight costs the garbage collector, with 64 stdio calls in flight.
//
// A JavaScript `Map` under steady inserts and deletes rebuilds its hash table every few dozen
// entries, and V8 links each old table to its successor (for iterators still walking it). Once one
// table of the chain has been promoted to the old generation, the dead chain keeps every later
// table, and the entries they held, alive through young-generation collections: each call's
// objects outlive two scavenges and are promoted, and full collections follow. The chain starts
// only once a table gets promoted, which a larger heap (a schema library loaded) makes likely.
//
// Variants, each in its own process, alternating, several rounds:
// - the floor's client (its requests in flight in a `Map`), as it is and with zod loaded;
// - the same client with its requests in a plain object instead of a `Map`, zod loaded;
// - mcpwire's session over its stdio transport, zod loaded, its requests in flight in an `IdTable`
//   (src/collections/id-table.ts) as they are, and in a `Map` as they were before.
// It prints CPU per call, the collections seen and the bytes the scavenges promoted.
//   npm run build && node bench/gc-regime.mjs
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { inFlight } from "./in-flight.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = 100_000;
const VARIANTS = [
  { name: "floor, requests in a Map", client: "floor", zod: false },
  { name: "floor, requests in a Map, zod loaded", client: "floor", zod: true },
  { name: "floor, requests in a plain object, zod loaded", client: "floor-object", zod: true },
  { name: "mcpwire session, requests in a Map (as before the IdTable), zod loaded", client: "session-map", zod: true },
  { name: "mcpwire session, requests in an IdTable, zod loaded", client: "session", zod: true },
];
const SERVER = { command: process.execPath, args: [`${here}servers/minimal-server.mjs`, "stdio"] };
const PAYLOAD = "p".repeat(64);

/** The floor's stdio client (bench/clients/floor.mjs), its table of requests in flight chosen here. */
async function floorClient(table) {
  const { onLines } = await import("./servers/line-reader.mjs");
  const child = spawn(SERVER.command, SERVER.args, { stdio: ["pipe", "pipe", "inherit"] });
  let nextId = 1;
  onLines(child.stdout, (line) => {
    const message = JSON.parse(line);
    const resolve = table.take(message.id);
    resolve?.(message);
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      table.put(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gc-regime", version: "1" } });
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  return () => request("tools/call", { name: "echo", arguments: { text: PAYLOAD } });
}

function mapTable() {
  const map = new Map();
  return {
    put: (id, value) => map.set(id, value),
    take(id) {
      const value = map.get(id);
      map.delete(id);
      return value;
    },
  };
}

function objectTable() {
  const object = Object.create(null);
  return {
    put: (id, value) => (object[id] = value),
    take(id) {
      const value = object[id];
      delete object[id];
      return value;
    },
  };
}

async function sessionClient(withMap) {
  const { TransportSession, StdioTransport } = await import("../dist/index.js");
  const session = new TransportSession(new StdioTransport(SERVER), { timeoutMs: 120_000 });
  // The experiment only: the session's private table swapped for a Map with the same methods.
  if (withMap) session.pending = Object.assign(new Map(), { valueList: () => [...session.pending.values()] });
  await session.open();
  await session.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gc-regime", version: "1" } });
  await session.notify("notifications/initialized");
  return () => session.request("tools/call", { name: "echo", arguments: { text: PAYLOAD } });
}

if (process.argv[2] === "--child") {
  const [client, zod] = process.argv.slice(3);
  const { PerformanceObserver, constants } = await import("node:perf_hooks");
  // zod itself, as mcpwire loaded it before its schemas moved to valita: the larger heap is the condition studied.
  if (zod === "zod") await import("zod");
  const call = client.startsWith("session")
    ? await sessionClient(client === "session-map")
    : await floorClient(client === "floor" ? mapTable() : objectTable());
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
  process.stdout.write("timed part starts\n");
  const cpu = process.cpuUsage();
  await inFlight(call, CALLS);
  const used = process.cpuUsage(cpu);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the last gc entries
  observer.disconnect();
  process.stdout.write(`${JSON.stringify({ microsPerCall: (used.user + used.system) / CALLS, ...counts })}\n`);
  process.exit(0);
}

/** Runs one variant; V8's --trace-gc-nvp lines (on stdout) give the bytes each scavenge promoted. */
function run(variant) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--trace-gc-nvp", fileURLToPath(import.meta.url), "--child", variant.client, variant.zod ? "zod" : "none"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${variant.name} exited with ${code}`));
      const timed = out.slice(out.indexOf("timed part starts\n"));
      const lines = timed.split("\n");
      const figures = JSON.parse(lines.findLast((line) => line.startsWith("{")));
      let promoted = 0;
      for (const line of lines) if (line.includes("gc=s ")) promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
      resolve({ ...figures, promotedMiB: promoted / 1048576 });
    });
  });
}

const results = new Map(VARIANTS.map((variant) => [variant.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of VARIANTS) results.get(variant.name).push(await run(variant));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`${CALLS} calls, 64 in flight, ${ROUNDS} rounds (medians), Node ${process.version}\n`);
console.log("| variant | CPU per call (µs) | scavenges | full GCs | time in GC (ms) | promoted by scavenges (MiB) |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const [name, runs] of results) {
  const figure = (key, digits) => median(runs.map((r) => r[key])).toFixed(digits);
  console.log(`| ${name} | ${figure("microsPerCall", 1)} | ${figure("minor", 0)} | ${figure("major", 0)} | ${figure("gcMs", 0)} | ${figure("promotedMiB", 1)} |`);
}
