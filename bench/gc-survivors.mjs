// Where the objects that outlive young-generation collections are allocated, for one client with
// 64 calls in flight: V8's sampling heap profiler, counting objects collected by a major GC or
// still alive, and not those a scavenge collected. Bytes per call, by allocation site.
//   npm run build && node bench/gc-survivors.mjs <floor|floor-undici|sdk|mcpwire> [calls]
// BENCH_TRANSPORT: stdio (the default), http-json or http-sse (against a server of its own).
import inspector from "node:inspector/promises";
import { fileURLToPath } from "node:url";
import { inFlight } from "./in-flight.mjs";
import { startHttpServer } from "./servers/start-http-server.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const [clientName = "mcpwire", calls = "50000"] = process.argv.slice(2);
const CALLS = Number(calls);
const TRANSPORT = process.env.BENCH_TRANSPORT ?? "stdio";
if (!["stdio", "http-json", "http-sse"].includes(TRANSPORT)) throw new Error(`BENCH_TRANSPORT must be stdio, http-json or http-sse, got ${TRANSPORT}`);
const server = TRANSPORT === "stdio" ? undefined : await startHttpServer(TRANSPORT);
const client = await (await import(`./clients/${clientName}.mjs`)).load();
const session = await client.connect(
  server ? { url: server.url } : { command: process.execPath, args: [`${here}servers/minimal-server.mjs`, "stdio"] },
);

const echo = () => session.call("echo", { text: "p".repeat(64) });

await inFlight(echo, 20_000); // warm-up
const profiler = new inspector.Session();
profiler.connect();
await profiler.post("HeapProfiler.startSampling", {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: false,
});
await inFlight(echo, CALLS);
const { profile } = await profiler.post("HeapProfiler.stopSampling");
profiler.disconnect();
await session.close();
await server?.stop();

const bySite = new Map();
let total = 0;
const frame = (node) => `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.split("/").slice(-2).join("/")}:${node.callFrame.lineNumber + 1}`;
(function walk(node, stack) {
  const path = [...stack, frame(node)];
  if (node.selfSize > 0) {
    const site = path.slice(-3).reverse().join(" < ");
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child, path);
})(profile.head, []);

console.log(`${clientName}: ${(total / CALLS).toFixed(0)} bytes per call outlived a scavenge (${CALLS} calls, 64 in flight, ${TRANSPORT})`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`${(bytes / CALLS).toFixed(1).padStart(8)}  ${site}`);
}
process.exit(0);
