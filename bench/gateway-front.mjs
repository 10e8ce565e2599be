// What the gateway's HTTP front costs a call, against a direct stdio connection: the same minimal
// stdio server (servers/minimal-server.mjs), reached by mcpwire over stdio, and by mcpwire over
// Streamable HTTP through `createGateway` on 127.0.0.1 (a legacy session with its own child, and
// the stateless pool of one child). The three alternate within each round, in one process; the
// ratios are what to read (the machine is shared, absolute figures are noise).
//
//   node --import tsx bench/gateway-front.mjs
//
// Environment: BENCH_ROUNDS (5), BENCH_SEQUENTIAL (500 calls one at a time), BENCH_CONCURRENT
// (2000 calls, 64 in flight). With BENCH_GATEWAY_JSON=1 a last line holds the figures as JSON, for
// `npm run bench` (run.mjs), which runs this as its gateway section.
import { fileURLToPath } from "node:url";
import { median, timeRounds } from "./relay-windows.mjs";
import { connect } from "../src/index.ts";
import { createGateway } from "../src/gateway/gateway.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 500);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 2_000);
const IN_FLIGHT = 64;

const server = fileURLToPath(new URL("./servers/minimal-server.mjs", import.meta.url));
const target = { command: process.execPath, args: [server, "stdio"] };

async function throughGateway(legacy) {
  const gateway = createGateway({ target, listen: "127.0.0.1:0", legacy, poolMin: 1, poolMax: 1, drainDelayMs: 0, log: () => {} });
  const url = await gateway.listen();
  await new Promise((resolve) => {
    if (gateway.readiness.state().ready) return resolve();
    const stop = gateway.readiness.onChange((state) => state.ready && (stop(), resolve()));
  });
  const client = await connect(url, { protocolVersion: "legacy", maxInFlight: IN_FLIGHT });
  return {
    call: (params) => client.callTool(params.name, params.arguments),
    close: async () => {
      await client.close();
      await gateway.close();
    },
  };
}

const clients = {
  async direct() {
    const client = await connect(target, { protocolVersion: "legacy", maxInFlight: IN_FLIGHT });
    return { call: (params) => client.callTool(params.name, params.arguments), close: () => client.close() };
  },
  session: () => throughGateway("session"),
  stateless: () => throughGateway("stateless"),
};

const times = await timeRounds(clients, { rounds: ROUNDS, sequential: SEQUENTIAL, concurrent: CONCURRENT, inFlight: IN_FLIGHT });

console.log(`| path | ${SEQUENTIAL} sequential, ms (median) | ${CONCURRENT} with ${IN_FLIGHT} in flight, ms (median) | ratio to direct stdio (seq / conc) |`);
console.log("| --- | --- | --- | --- |");
const direct = { sequential: median(times.direct.sequential), concurrent: median(times.direct.concurrent) };
const summary = {};
for (const [name, figures] of Object.entries(times)) {
  const seq = median(figures.sequential);
  const conc = median(figures.concurrent);
  summary[name] = { sequentialMs: seq, concurrentMs: conc, sequentialRatio: seq / direct.sequential, concurrentRatio: conc / direct.concurrent };
  console.log(`| ${name} | ${seq.toFixed(0)} | ${conc.toFixed(0)} | ${(seq / direct.sequential).toFixed(2)} / ${(conc / direct.concurrent).toFixed(2)} |`);
}
if (process.env.BENCH_GATEWAY_JSON === "1") console.log(JSON.stringify({ rounds: ROUNDS, sequential: SEQUENTIAL, concurrent: CONCURRENT, inFlight: IN_FLIGHT, summary, raw: times }));
