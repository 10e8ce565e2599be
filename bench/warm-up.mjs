// How each client's cost per call changes as a run goes on: the main benchmark times
// short windows (2 000 sequential calls after 2 000 warm-up calls, then 10 000 with 64 in flight),
// and a client whose hot path is longer than the floor's is still being optimized in them.
//
// Each client runs in its own process, with V8's --trace-opt, alternating, several rounds. The run
// is cut into slices: 8 slices of 1 000 sequential calls, then 8 slices of 2 000 calls with 64 in
// flight. For each slice it prints the client's CPU per call, its calls per second, and the
// milliseconds V8's optimizing compiler (TurboFan) spent on the functions it finished optimizing
// in that slice (that work runs on a background thread, and counts in the process's CPU).
//   npm run build && node bench/warm-up.mjs            (stdio)
//   BENCH_TRANSPORT=http-json node bench/warm-up.mjs   (or http-sse: the same over HTTP)
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startHttpServer } from "./servers/start-http-server.mjs";
import { inFlight } from "./in-flight.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRANSPORT = process.env.BENCH_TRANSPORT ?? "stdio";
const CLIENTS = (process.env.BENCH_CLIENTS ?? "floor,sdk,mcpwire").split(",");
const SEQUENTIAL_SLICES = 8;
const SEQUENTIAL_SLICE = 1_000;
const CONCURRENT_SLICES = 8;
const CONCURRENT_SLICE = 2_000;
const IN_FLIGHT = 64;
const MARK = "=== slice ";

if (process.argv[2] === "--child") {
  const [clientName, target] = process.argv.slice(3);
  const server =
    target === "stdio" ? { command: process.execPath, args: [fileURLToPath(new URL("servers/minimal-server.mjs", import.meta.url)), "stdio"] } : { url: target };
  const client = await (await import(`./clients/${clientName}.mjs`)).load();
  const session = await client.connect(server);
  await session.listTools();
  const call = () => session.call("echo", { text: "p".repeat(64) });
  const cpuPerCall = [];
  const callsPerSec = [];
  const slice = async (name, calls, run) => {
    process.stdout.write(`${MARK}${name}\n`);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await run(calls);
    callsPerSec.push((calls / (performance.now() - start)) * 1000);
    const used = process.cpuUsage(cpu);
    cpuPerCall.push((used.user + used.system) / calls);
  };
  const sequential = async (calls) => {
    for (let i = 0; i < calls; i++) await call();
  };
  const concurrent = (calls) => inFlight(call, calls, IN_FLIGHT);
  for (let i = 0; i < SEQUENTIAL_SLICES; i++) await slice(`sequential ${i}`, SEQUENTIAL_SLICE, sequential);
  for (let i = 0; i < CONCURRENT_SLICES; i++) await slice(`in flight ${i}`, CONCURRENT_SLICE, concurrent);
  process.stdout.write(`${MARK}end\n${JSON.stringify({ cpuPerCall, callsPerSec })}\n`);
  await session.close();
  process.exit(0);
}

/** One client's run: CPU per call, calls per second and TurboFan milliseconds, per slice. */
function run(clientName, target) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--trace-opt", fileURLToPath(import.meta.url), "--child", clientName, target], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${clientName} exited with ${code}`));
      const parts = out.split(MARK).slice(1); // each starts with the slice's name
      const { cpuPerCall, callsPerSec } = JSON.parse(parts.at(-1).split("\n")[1]);
      // "[completed compiling ... (target TURBOFAN) - took 0.02, 7.80, 0.07 ms]": the middle figure
      // is the optimization itself, off the main thread.
      const compileMs = parts.slice(0, -1).map((part) => {
        let total = 0;
        for (const match of part.matchAll(/target TURBOFAN\) - took [\d.]+, ([\d.]+), [\d.]+ ms/g)) total += Number(match[1]);
        return total;
      });
      resolve({ cpuPerCall, callsPerSec, compileMs });
    });
  });
}

const results = new Map(CLIENTS.map((client) => [client, []]));
const server = TRANSPORT === "stdio" ? undefined : await startHttpServer(TRANSPORT);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const client of CLIENTS) {
      process.stderr.write(`round ${round + 1}/${ROUNDS} ${client}\n`);
      results.get(client).push(await run(client, server?.url ?? "stdio"));
    }
  }
} finally {
  await server?.stop();
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sliceNames = [
  ...Array.from({ length: SEQUENTIAL_SLICES }, (_, i) => `sequential ${i * SEQUENTIAL_SLICE + 1}-${(i + 1) * SEQUENTIAL_SLICE}`),
  ...Array.from({ length: CONCURRENT_SLICES }, (_, i) => `${IN_FLIGHT} in flight ${i * CONCURRENT_SLICE + 1}-${(i + 1) * CONCURRENT_SLICE}`),
];
console.log(`${TRANSPORT}, ${ROUNDS} rounds (medians), Node ${process.version}\n`);
const header = CLIENTS.flatMap((client) => [`${client} CPU/call (µs)`, `${client} calls/s`, `${client} TurboFan (ms)`]);
console.log(`| calls | ${header.join(" | ")} |`);
console.log(`| --- | ${header.map(() => "---").join(" | ")} |`);
sliceNames.forEach((name, index) => {
  const cells = CLIENTS.flatMap((client) => {
    const runs = results.get(client);
    return [
      median(runs.map((r) => r.cpuPerCall[index])).toFixed(1),
      median(runs.map((r) => r.callsPerSec[index])).toFixed(0),
      median(runs.map((r) => r.compileMs[index])).toFixed(0),
    ];
  });
  console.log(`| ${name} | ${cells.join(" | ")} |`);
});
