// The timed windows the gateway benches share (gateway-children.mjs, gateway-front.mjs): each
// client makes the same `echo` calls one at a time, then with IN_FLIGHT in flight, after an
// untimed warm-up window, in rounds whose order alternates so that none always runs first on a
// cold machine. Each client is `async () => ({ call(params), close() })`.
import { inFlight as runInFlight } from "./in-flight.mjs";

/** Runs the rounds; resolves with each client's window times in ms, by name. */
export async function timeRounds(clients, { rounds, sequential, concurrent, inFlight }) {
  const call = { name: "echo", arguments: { text: "hi" } };
  const runSequential = async (client) => {
    const started = performance.now();
    for (let n = 0; n < sequential; n++) await client.call(call);
    return performance.now() - started;
  };
  const runConcurrent = async (client) => {
    const started = performance.now();
    await runInFlight(() => client.call(call), concurrent, inFlight);
    return performance.now() - started;
  };
  const times = Object.fromEntries(Object.keys(clients).map((name) => [name, { sequential: [], concurrent: [] }]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? Object.keys(clients) : Object.keys(clients).reverse();
    for (const name of order) {
      const client = await clients[name]();
      await runSequential(client); // warm-up window, not timed
      times[name].sequential.push(await runSequential(client));
      times[name].concurrent.push(await runConcurrent(client));
      await client.close();
    }
  }
  return times;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
