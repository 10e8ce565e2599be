// What the gateway's children side costs a call, against the floor: the same minimal stdio server
// (servers/minimal-server.mjs), reached by the bare floor client (clients/floor.mjs), by one
// `GatewayChild` (ids and tokens rewritten, the timeout armed, the answer mapped back) and by a
// `ChildPool` of one child (the pick, the sink wrapped). No HTTP: the front's cost is not here.
// The three alternate within each round, in one process; the ratios are what to read (the machine
// is shared, absolute figures are noise).
//
//   node --import tsx bench/gateway-children.mjs
//
// Environment: BENCH_ROUNDS (5), BENCH_SEQUENTIAL (2000 calls one at a time), BENCH_CONCURRENT
// (4000 calls, 64 in flight).
import { fileURLToPath } from "node:url";
import { median, timeRounds } from "./relay-windows.mjs";
import { stdio as floorStdio } from "./clients/floor.mjs";
import { ChildPool, GatewayChild } from "../src/gateway/children/index.ts";
import { defaultEnvAllow } from "../src/transport/stdio/stdio.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2_000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 4_000);
const IN_FLIGHT = 64;

const server = fileURLToPath(new URL("./servers/minimal-server.mjs", import.meta.url));
const command = { command: process.execPath, args: [server, "stdio"], env: {}, envAllow: [...defaultEnvAllow()] };

/** A caller's request through a relay, as a promise of its answer. */
function viaRelay(relay) {
  let id = 0;
  return (params) =>
    new Promise((resolve, reject) => {
      relay.request({ jsonrpc: "2.0", id: ++id, method: "tools/call", params }, { message() {}, answer: resolve, failed: reject });
    });
}

const clients = {
  async floor() {
    const client = await floorStdio({ command: process.execPath, args: [server, "stdio"] });
    return { call: (params) => client.call(params.name, params.arguments), close: () => client.close() };
  },
  async child() {
    const child = await GatewayChild.spawn({ command, owner: { unrelated() {}, exited() {} }, limits: { maxInFlight: IN_FLIGHT } });
    // The legacy server wants its handshake: the gateway's own, as a stateless pool does it.
    await child.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    child.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
    const relay = { request: (message, sink) => child.request(message, sink, undefined, { scope: relay }) };
    return { call: viaRelay(relay), close: () => child.close() };
  },
  async pool() {
    const pool = new ChildPool({ command, era: "legacy-stateless", poolMin: 1, poolMax: 1, limits: { maxInFlight: IN_FLIGHT } });
    await pool.start();
    return { call: viaRelay(pool.caller()), close: () => pool.close() };
  },
};

const times = await timeRounds(clients, { rounds: ROUNDS, sequential: SEQUENTIAL, concurrent: CONCURRENT, inFlight: IN_FLIGHT });

console.log(`| relay | ${SEQUENTIAL} sequential, ms (median) | ${CONCURRENT} with ${IN_FLIGHT} in flight, ms (median) | ratio to floor (seq / conc) |`);
console.log("| --- | --- | --- | --- |");
const floor = { sequential: median(times.floor.sequential), concurrent: median(times.floor.concurrent) };
for (const [name, figures] of Object.entries(times)) {
  const seq = median(figures.sequential);
  const conc = median(figures.concurrent);
  console.log(`| ${name} | ${seq.toFixed(0)} | ${conc.toFixed(0)} | ${(seq / floor.sequential).toFixed(2)} / ${(conc / floor.concurrent).toFixed(2)} |`);
}
