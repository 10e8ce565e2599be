#!/usr/bin/env node
// Measures what the memory limit of k8s/deployment.yaml is sized from: the resident memory of
// the wrapped stdio server, one child as the gateway runs it, and of the process that drives the
// children.
//
//   npm run build && node deploy/measure-child-rss.mjs [--children N] [--out file.json] [-- command line]
//
// It connects to N children with mcpwire's own stdio transport (argv, own process group, the
// default environment allowlist: as the gateway spawns them), lists their tools so that each has
// answered a handshake and a request, then reads from /proc (Linux only):
// - each child's RSS: the VmRSS of every process in its group (a server run through a wrapper
//   counts whole), and its PSS (shared pages counted once), lower than the sum of RSS;
// - this process's own RSS with the N connections open, which stands for the gateway's own share
//   (an overestimate: this process is not doing anything else, but Node's heap is not trimmed).
// RSS is what the formula uses: it is what a cgroup can be charged at worst for a child.
//
// Measure with the Node of the image (24): `tools/node24/node_modules/.bin/node deploy/...`.
// The default command is server-everything from node_modules, run by this same Node.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const { connect } = await import(new URL("../dist/index.js", import.meta.url).href).catch(() => {
  process.stderr.write(`measure-child-rss: ${root}dist/index.js is missing: run "npm run build" first\n`);
  process.exit(2);
});

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const flags = split === -1 ? argv : argv.slice(0, split);
const everything = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const commandLine = split === -1 ? `'${process.execPath}' '${everything}' stdio` : argv.slice(split + 1).join(" ");
const flag = (name) => {
  const at = flags.indexOf(name);
  return at === -1 ? undefined : flags[at + 1];
};
const children = Number(flag("--children") ?? 4);
if (!Number.isInteger(children) || children < 1 || children > 64) {
  process.stderr.write(`measure-child-rss: --children ${flag("--children")} is not a whole number from 1 to 64\n`);
  process.exit(2);
}
if (process.platform !== "linux") {
  process.stderr.write("measure-child-rss: reads /proc, so it runs on Linux only\n");
  process.exit(2);
}

const KIB = 1024;
/** A field of /proc/<pid>/status or smaps_rollup, in bytes ("VmRSS:   51234 kB"). */
function procField(text, name) {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(text);
  return match ? Number(match[1]) * KIB : 0;
}
/** The fields of /proc/<pid>/stat after the command name, which may hold spaces or parentheses. */
function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}
const readOr = (path, fallback) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback; // the process ended between the listing and the read
  }
};
/** Every process, with its parent and its group (fields 4 and 5 of stat). */
function processes() {
  const all = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [, ppid, pgrp] = statFields(entry);
      all.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp) });
    } catch {
      // gone meanwhile
    }
  }
  return all;
}
function memoryOfGroup(all, leader) {
  let rss = 0;
  let pss = 0;
  for (const { pid } of all.filter((p) => p.pgrp === leader)) {
    rss += procField(readOr(`/proc/${pid}/status`, ""), "VmRSS");
    pss += procField(readOr(`/proc/${pid}/smaps_rollup`, ""), "Pss");
  }
  return { rss, pss };
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mib = (bytes) => Math.round((bytes / (KIB * KIB)) * 10) / 10;

const clients = [];
try {
  for (let i = 0; i < children; i++) {
    const client = await connect(commandLine, { timeoutMs: 60_000 });
    clients.push(client);
    await client.listTools();
  }
  const all = processes();
  // The children of this process that lead their own group: the servers (not, say, a helper
  // process a loader started, which stays in this process's group).
  const leaders = all.filter((p) => p.ppid === process.pid && p.pgrp === p.pid).map((p) => p.pid);
  if (leaders.length !== children) throw new Error(`found ${leaders.length} server processes, expected ${children}`);
  const perChild = leaders.map((leader) => memoryOfGroup(all, leader));
  const result = {
    command: commandLine === `'${process.execPath}' '${everything}' stdio` ? "server-everything (node_modules), stdio" : commandLine,
    serverVersion: commandLine.includes("server-everything")
      ? JSON.parse(readFileSync(`${root}node_modules/@modelcontextprotocol/server-everything/package.json`, "utf8")).version
      : undefined,
    node: process.version,
    measuredAt: new Date().toISOString().slice(0, 10),
    children,
    childRssMiB: { median: mib(median(perChild.map((m) => m.rss))), max: mib(Math.max(...perChild.map((m) => m.rss))) },
    childPssMiB: { median: mib(median(perChild.map((m) => m.pss))), max: mib(Math.max(...perChild.map((m) => m.pss))) },
    driverRssMiB: mib(procField(readFileSync("/proc/self/status", "utf8"), "VmRSS")),
  };
  const text = `${JSON.stringify(result, null, 2)}\n`;
  const out = flag("--out");
  if (out) writeFileSync(out, text);
  process.stdout.write(text);
} catch (error) {
  process.stderr.write(`measure-child-rss: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await Promise.allSettled(clients.map((client) => client.close()));
}
