// The process's CPU time split by thread: the main thread (where the client's JavaScript runs)
// against all the others (V8's optimizing compiler and garbage-collector helpers, libuv's pool).
// process.cpuUsage() sums them; the split tells a slower hot path from more code being compiled
// on the side (bench/RESULTS.md, "Where the in-flight window's CPU goes").
//
// Linux only: read from /proc/self/task/<tid>/schedstat, whose first field is the nanoseconds the
// thread has run. Elsewhere `threadCpu()` returns undefined and the figures are left out.
import { readdirSync, readFileSync } from "node:fs";

/** { mainMicros, otherMicros } run so far, or undefined where /proc has no schedstat. */
export function threadCpu() {
  let tids;
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return undefined;
  }
  let mainNanos = 0;
  let otherNanos = 0;
  for (const tid of tids) {
    let stat;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/schedstat`, "latin1");
    } catch {
      continue; // a thread that ended between the listing and the read, or no schedstat at all
    }
    const nanos = Number(stat.slice(0, stat.indexOf(" ")));
    if (tid === String(process.pid)) mainNanos += nanos;
    else otherNanos += nanos;
  }
  if (mainNanos === 0) return undefined; // this kernel does not keep schedstat
  return { mainMicros: mainNanos / 1000, otherMicros: otherNanos / 1000 };
}

/** The CPU per call of each side since `since` (a `threadCpu()` reading), into `figures` under `prefix`. */
export function recordThreadCpu(figures, prefix, since, calls) {
  const now = threadCpu();
  if (since === undefined || now === undefined) return;
  figures[`${prefix}MainThreadCpuMicrosPerCall`] = (now.mainMicros - since.mainMicros) / calls;
  figures[`${prefix}OtherThreadsCpuMicrosPerCall`] = (now.otherMicros - since.otherMicros) / calls;
}
