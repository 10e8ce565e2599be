// Where mcpwire's first connect + list over stdio goes: `node bench/cold-start-parts.mjs [rounds]`
// (after `npm run build`). Each part in a fresh process, the parts alternating, medians (min-max):
//
// - schemas: a first connect to a scripted server in memory (`RecordingTransport`): the load of
//   valita and the result schemas built with it, and a handshake that costs next to nothing;
// - server boot: the bench's minimal server spawned with a minimal environment (as every client
//   does) until it answers its first request, with no client library loaded;
// - connect + list, schemas loaded first: mcpwire's connect and first tools/list once the schemas
//   are there, so everything the first connect costs but them;
// - connect + list: the same, cold, as the cold-start table measures it.
//
// The first connect waits for the slower of the schemas and the server's boot (they overlap: the
// child is spawned first), then the round trips.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { format, summarize } from "./stats.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 7);
const SERVER = `${here}servers/minimal-server.mjs`;

const INDEX = JSON.stringify(`${here}../dist/index.js`);
/** A connect that loads the schemas and does nothing else of note. */
const SCRIPTED_CONNECT = "await (await connect(new RecordingTransport({}))).close();";

const PARTS = {
  schemas: `const { connect, RecordingTransport } = await import(${INDEX});
    const t = performance.now();
    ${SCRIPTED_CONNECT}
    console.log(performance.now() - t);`,
  "server boot": `import { spawn } from "node:child_process";
    const t = performance.now();
    const child = spawn(process.execPath, [${JSON.stringify(SERVER)}, "stdio"], { stdio: ["pipe", "pipe", "inherit"], env: { PATH: process.env.PATH } });
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) + "\\n");
    await new Promise((resolve) => child.stdout.once("data", resolve));
    console.log(performance.now() - t);
    child.kill();`,
  "connect + list, schemas loaded first": connectAndList(true),
  "connect + list": connectAndList(false),
};

function connectAndList(schemasFirst) {
  return `const { connect, RecordingTransport } = await import(${INDEX});
    ${schemasFirst ? SCRIPTED_CONNECT : ""}
    const t = performance.now();
    const client = await connect({ command: process.execPath, args: [${JSON.stringify(SERVER)}, "stdio"] });
    await client.listTools();
    console.log(performance.now() - t);
    await client.close();`;
}

function runPart(source) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", `${source}\nprocess.exit(0);`], { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(Number(stdout.trim().split("\n").at(-1))) : reject(new Error(`a part exited with ${code}`))));
  });
}

const names = Object.keys(PARTS);
const times = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names.map((_, i) => names[(i + round) % names.length])) times[name].push(await runPart(PARTS[name]));
}
process.stdout.write(`| part (${ROUNDS} rounds, ms) | median (min-max) |\n| --- | --- |\n`);
for (const name of names) process.stdout.write(`| ${name} | ${format(summarize(times[name]))} |\n`);
