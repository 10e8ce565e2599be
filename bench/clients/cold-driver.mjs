// One cold start of one client, in this fresh process, and one JSON line of figures:
//   node bench/clients/cold-driver.mjs <client> [minimal | everything]
// The server: the bench's minimal one (the default), or @modelcontextprotocol/server-everything
// over stdio, a real npm server that takes longer to start.
// importMs: the client's package imported; connectListMs: from the start of connect to the answer
// of the first tools/list over stdio (the package already imported); importConnectListMs: from
// before the dynamic import to that answer; sinceProcessStartMs: from the process's start (its
// time origin) to that answer. Each client with its defaults (`load({ defaults: true })`).
import { performance } from "node:perf_hooks";

const [clientName, serverName = "minimal"] = process.argv.slice(2);
const SERVERS = {
  minimal: [new URL("../servers/minimal-server.mjs", import.meta.url).pathname, "stdio"],
  everything: [new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url).pathname, "stdio"],
};

const beforeImport = performance.now();
const module = await import(`./${clientName}.mjs`);
const client = await module.load({ defaults: true });
const imported = performance.now();
const session = await client.connect({ command: process.execPath, args: SERVERS[serverName] });
const tools = await session.listTools();
const listed = performance.now();
if (tools.length === 0) throw new Error(`${clientName} listed no tools`);
await session.close();
process.stdout.write(
  `${JSON.stringify({
    client: clientName,
    server: serverName,
    importMs: imported - beforeImport,
    connectListMs: listed - imported,
    importConnectListMs: listed - beforeImport,
    sinceProcessStartMs: listed,
  })}\n`,
);
process.exit(0);
