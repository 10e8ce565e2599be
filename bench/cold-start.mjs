// The bench's cold start (issue 20): what a short-lived program pays before its first answer.
// Each figure from fresh processes, the clients alternating (the order turned each round):
//
// - connect + first list, import + connect + first list, and the same from the process's start:
//   `clients/cold-driver.mjs <client>`, one process per figure set, each client with its defaults;
//   connect + first list again against server-everything, a real server slower to start;
// - the wall time of a whole program that lists the tools of the same stdio server and exits:
//   each client's smallest script (`smallest/<client>.mjs`), and `mcpwire tools "<command>"` from
//   the build, timed from spawn to exit by this process.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { summarize, tableHead, tableRow } from "./stats.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const SERVER_COMMAND = [process.execPath, `${here}servers/minimal-server.mjs`, "stdio"];
const PROGRAM_DEADLINE_MS = 60_000; // a hung program fails the run instead of the machine

const FIGURES = [
  ["importMs", "import (ms)"],
  ["connectListMs", "connect + first list over stdio, imported already (ms)"],
  ["importConnectListMs", "import + connect + first list (ms)"],
  ["sinceProcessStartMs", "process start to first list's answer (ms)"],
  ["everythingConnectListMs", "connect + first list, server-everything over stdio (ms)"],
  ["scriptWallMs", "smallest listing script, wall time (ms)"],
  ["cliWallMs", "`mcpwire tools` (mcpwire) beside the others' smallest scripts, wall time (ms)"],
];

/** Runs `node <args>` to its end; resolves with its stdout and the wall time from spawn to exit. */
function runProgram(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_NO_WARNINGS: undefined } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), PROGRAM_DEADLINE_MS);
    child.on("exit", (code) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`node ${args.join(" ")} exited with ${code}: ${stderr.slice(-2000)}`));
      resolve({ stdout, wallMs });
    });
  });
}

/** One round of one client: its figures, or null for each a failure left unmeasured. */
async function coldRound(client) {
  const figures = {};
  try {
    const { stdout } = await runProgram([`${here}clients/cold-driver.mjs`, client]);
    Object.assign(figures, JSON.parse(stdout.trim().split("\n").at(-1)));
  } catch (error) {
    process.stderr.write(`cold start ${client}: ${error.message}\n`);
    for (const key of ["importMs", "connectListMs", "importConnectListMs", "sinceProcessStartMs"]) figures[key] = null;
  }
  const everything = await runProgram([`${here}clients/cold-driver.mjs`, client, "everything"]).catch((error) => {
    process.stderr.write(`cold start ${client} (server-everything): ${error.message}\n`);
  });
  figures.everythingConnectListMs = everything ? JSON.parse(everything.stdout.trim().split("\n").at(-1)).connectListMs : null;
  const listed = (stdout) => ["echo", "blob", "sink"].every((name) => stdout.includes(name));
  const script = await runProgram([`${here}smallest/${client}.mjs`, ...SERVER_COMMAND]).catch(() => undefined);
  figures.scriptWallMs = script && listed(script.stdout) ? script.wallMs : null;
  if (client === "mcpwire") {
    const cli = await runProgram([`${here}../dist/cli/main.js`, "tools", SERVER_COMMAND.join(" ")]).catch(() => undefined);
    figures.cliWallMs = cli && listed(cli.stdout) ? cli.wallMs : null;
  }
  return figures;
}

/**
 * The cold-start table for `clients`, `rounds` rounds. The `mcpwire tools` row is set beside each
 * peer's smallest script: its ratios are `mcpwire tools` over that script's wall time.
 */
export async function runColdStart({ clients, rounds }) {
  const raw = Object.fromEntries(clients.map((client) => [client, []]));
  for (let round = 0; round < rounds; round++) {
    const order = clients.map((_, i) => clients[(i + round) % clients.length]);
    for (const client of order) {
      process.stderr.write(`round ${round + 1}/${rounds} cold start ${client}\n`);
      raw[client].push(await coldRound(client));
    }
  }
  const summary = {};
  const lines = ["\n### cold start (stdio, fresh processes)\n", ...tableHead(clients)];
  for (const [key, title] of FIGURES) {
    const stats = Object.fromEntries(clients.map((client) => [client, summarize(raw[client].map((figures) => figures[key]))]));
    summary[key] = stats;
    if (key === "cliWallMs") {
      // mcpwire's column is its CLI; every other column is that client's smallest script again.
      const beside = { ...summary.scriptWallMs, mcpwire: stats.mcpwire };
      summary.cliBesideScripts = beside;
      lines.push(tableRow(title, clients, beside));
      continue;
    }
    if (clients.every((client) => stats[client] === undefined)) continue;
    lines.push(tableRow(title, clients, stats));
  }
  return { lines, summary, raw };
}
