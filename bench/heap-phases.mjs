// Where a client's memory goes in the issue's windows, phase by phase (bench/RESULTS.md, "Where
// the HTTP peak's extra MiB come from"): after the connect, after the calls made one at a time
// (2 000 warm-up and 2 000 timed, as the driver makes them) and after 10 000 calls with 64 in
// flight, the RSS, the high-water mark so far and the young generation's size; and in the
// in-flight phase, the bytes that survived each scavenge (`--trace-gc-nvp`), which are what the
// calls in flight hold and what makes V8 double the young generation.
//   npm run build && node bench/heap-phases.mjs
// Environment: BENCH_CLIENTS (floor,floor-undici,mcpwire; mcpwire-layer with BENCH_LAYER),
// BENCH_TRANSPORT (http-json, http-sse or stdio), BENCH_ROUNDS (3), and BENCH_NODE_FLAGS, V8 flags
// for the client's process (`--liftoff-only` leaves WebAssembly, undici's HTTP parser, to the
// baseline compiler).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { inFlight } from "./in-flight.mjs";
import { withServer } from "./servers/start-http-server.mjs";

const SELF = fileURLToPath(import.meta.url);
const PAYLOAD = "p".repeat(64);
const ONE_AT_A_TIME = 4_000;
const IN_FLIGHT_CALLS = 10_000;
const IN_FLIGHT = 64;

if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4], process.argv[5]);
else await parent();

/** One client in this process: the phases, each line "phase <name> <json>" on stdout. */
async function child(clientName, transport, target) {
  const phase = (name) => {
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    const figures = {
      rssMiB: process.memoryUsage().rss / 2 ** 20,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      youngMiB: young.space_size / 2 ** 20,
    };
    process.stdout.write(`phase ${name} ${JSON.stringify(figures)}\n`);
  };
  const client = await (await import(`./clients/${clientName}.mjs`)).load();
  const server = new URL("servers/minimal-server.mjs", import.meta.url).pathname;
  const session = await client.connect(transport === "stdio" ? { command: process.execPath, args: [server, "stdio"] } : { url: target });
  await session.listTools();
  phase("connected");
  for (let i = 0; i < ONE_AT_A_TIME; i++) await session.call("echo", { text: PAYLOAD });
  phase("one-at-a-time");
  await inFlight(() => session.call("echo", { text: PAYLOAD }), IN_FLIGHT_CALLS, IN_FLIGHT);
  phase("in-flight");
  await session.close();
  process.exit(0);
}

async function parent() {
  const clients = (process.env.BENCH_CLIENTS ?? "floor,floor-undici,mcpwire").split(",").filter(Boolean);
  const transport = process.env.BENCH_TRANSPORT ?? "http-json";
  if (!["stdio", "http-json", "http-sse"].includes(transport)) throw new Error(`BENCH_TRANSPORT must be stdio, http-json or http-sse, got ${transport}`);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const flags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  console.log(`Node ${process.version}, ${transport}, ${rounds} rounds${flags.length ? `, flags ${flags.join(" ")}` : ""}; MiB, and KiB surviving a scavenge with ${IN_FLIGHT} in flight.\n`);
  console.log("| client | round | RSS after connect | RSS after one at a time | its peak | RSS after in flight | peak through in flight | young generation at the end | KiB surviving a scavenge in flight (scavenges) |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (let round = 1; round <= rounds; round++) {
    for (const client of clients) {
      const { phases, survived } = await withServer(transport, (target) => runChild(client, transport, target, flags));
      const [connected, alone, inFlight] = ["connected", "one-at-a-time", "in-flight"].map((name) => phases[name]);
      const mean = survived.length ? survived.reduce((a, b) => a + b, 0) / survived.length / 1024 : 0;
      const cells = [connected.rssMiB, alone.rssMiB, alone.maxRssMiB, inFlight.rssMiB, inFlight.maxRssMiB, inFlight.youngMiB].map((mib) => mib.toFixed(1));
      console.log(`| ${client} | ${round} | ${cells.join(" | ")} | ${mean.toFixed(0)} (${survived.length}) |`);
    }
  }
}

/** The child's phases, and the bytes that survived each scavenge of its in-flight phase. */
function runChild(client, transport, target, flags) {
  const args = [...flags, "--trace-gc-nvp", SELF, "--child", client, transport, target];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env: process.env, timeout: 300_000, maxBuffer: 256 * 2 ** 20 }, (error, stdout) => {
      if (error) return reject(new Error(`${client} failed: ${error.message}`));
      const phases = {};
      const survived = [];
      let current;
      for (const line of stdout.split("\n")) {
        const mark = /^phase (\S+) (.*)$/.exec(line);
        if (mark) {
          phases[mark[1]] = JSON.parse(mark[2]);
          current = mark[1];
          continue;
        }
        // Scavenges after the calls one at a time are the in-flight phase's.
        const scavenge = / gc=s .*new_space_survived=(\d+)/.exec(line);
        if (scavenge && current === "one-at-a-time") survived.push(Number(scavenge[1]));
      }
      resolve({ phases, survived });
    });
  });
}
