// How long each client's stdio call path is: the functions of the client's own code that run on
// every sequential call, and the length of their source (what V8 has to compile before the path
// is fast; bench/RESULTS.md, "The read-stall watch of one stream, and where the sequential gap
// sits"). V8's precise coverage counts each function's calls over BENCH_CALLS calls made after a
// warm-up; a function that runs at least once a call (allowing a tenth for calls whose timer or
// flush came due in another turn) is on the path.
//   npm run build && node bench/call-path.mjs
// Environment: BENCH_CLIENTS (floor,floor-kept,mcpwire), BENCH_CALLS (1000), BENCH_LIST=1 to print
// every function (count, source characters, name, file).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const SERVER = fileURLToPath(new URL("servers/minimal-server.mjs", import.meta.url));
/** Where each client's own code is: the bench's client file, or mcpwire's built package. */
const OWN_CODE = {
  floor: [new URL("clients/", import.meta.url).href],
  "floor-kept": [new URL("clients/", import.meta.url).href],
  mcpwire: [new URL("../dist/", import.meta.url).href],
};

const client = process.env.BENCH_CALL_PATH_CLIENT;
if (client === undefined) {
  const clients = (process.env.BENCH_CLIENTS ?? "floor,floor-kept,mcpwire").split(",").filter(Boolean);
  console.log(`functions of each client's own code run on every one of ${CALLS} sequential stdio calls`);
  console.log("| client | functions | characters of source |\n| --- | --- | --- |");
  for (const name of clients) {
    if (!(name in OWN_CODE)) throw new Error(`BENCH_CLIENTS: unknown client ${name} (known: ${Object.keys(OWN_CODE).join(", ")})`);
    // A fresh process each: coverage, and what was compiled, of one client only.
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_CALL_PATH_CLIENT: name },
      encoding: "utf8",
    });
    const { functions, characters, list } = JSON.parse(out);
    console.log(`| ${name} | ${functions} | ${characters} |`);
    if (process.env.BENCH_LIST === "1") for (const row of list) console.log(`    ${row}`);
  }
} else {
  const inspector = new Session();
  inspector.connect();
  await inspector.post("Profiler.enable");
  await inspector.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  const { load } = await import(`./clients/${client}.mjs`);
  const session = await (await load()).connect({ command: process.execPath, args: [SERVER, "stdio"] });
  await session.listTools();
  for (let i = 0; i < 100; i++) await session.call("echo", { text: "p".repeat(64) });
  await inspector.post("Profiler.takePreciseCoverage"); // resets the counts
  for (let i = 0; i < CALLS; i++) await session.call("echo", { text: "p".repeat(64) });
  const { result } = await inspector.post("Profiler.takePreciseCoverage");
  await session.close();
  const rows = [];
  for (const script of result) {
    if (!OWN_CODE[client].some((prefix) => script.url.startsWith(prefix))) continue;
    if (script.url.endsWith("/driver.mjs")) continue;
    const source = readFileSync(new URL(script.url), "utf8");
    for (const fn of script.functions) {
      const whole = fn.ranges[0];
      if (whole.count < CALLS * 0.9 || whole.startOffset === 0) continue; // 0: the module itself
      const name = fn.functionName || source.slice(whole.startOffset, whole.startOffset + 30).split("\n")[0];
      rows.push({ count: whole.count, length: whole.endOffset - whole.startOffset, name, file: script.url.split("/").slice(-2).join("/") });
    }
  }
  rows.sort((a, b) => b.length - a.length);
  const list = rows.map((row) => `${String(row.count).padStart(6)} ${String(row.length).padStart(6)}  ${row.name}  ${row.file}`);
  const characters = rows.reduce((sum, row) => sum + row.length, 0);
  process.stdout.write(JSON.stringify({ functions: rows.length, characters, list }));
  process.exit(0);
}
