// One cold start of one client, in this fresh process, and one JSON line of figures:
//   node bench/clients/cold-driver.mjs <client>
// importMs: the client's package imported; connectListMs: from the start of connect to the answer
// of the first tools/list over stdio (the package already imported); importConnectListMs: from
// before the dynamic import to that answer; sinceProcessStartMs: from the process's start (its
// time origin) to that answer. Each client with its defaults (`load({ defaults: true })`).
import { performance } from "node:perf_hooks";

const [clientName] = process.argv.slice(2);
const SERVER = new URL("../servers/minimal-server.mjs", import.meta.url).pathname;

const beforeImport = performance.now();
const module = await import(`./${clientName}.mjs`);
const client = await module.load({ defaults: true });
const imported = performance.now();
const session = await client.connect({ command: process.execPath, args: [SERVER, "stdio"] });
const tools = await session.listTools();
const listed = performance.now();
if (tools.length === 0) throw new Error(`${clientName} listed no tools`);
await session.close();
process.stdout.write(
  `${JSON.stringify({
    client: clientName,
    importMs: imported - beforeImport,
    connectListMs: listed - imported,
    importConnectListMs: listed - beforeImport,
    sinceProcessStartMs: listed,
  })}\n`,
);
process.exit(0);
