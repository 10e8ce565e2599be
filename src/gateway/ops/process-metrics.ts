/**
 * What an operator needs to know about the gateway's own process, read at each scrape: when it
 * started, its CPU time, its memory, open handles aside, and how late its event loop runs (a
 * gateway whose loop lags answers every caller late, and no request metric says why).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import type { Collector, FamilySnapshot } from "./metric-registry.js";

/** How often the event-loop delay is sampled, in ms: fine enough to see a stall, cheap when idle. */
export const EVENT_LOOP_RESOLUTION_MS = 20;

export interface ProcessMetrics {
  readonly collector: Collector;
  /** Stops sampling the event loop. Idempotent. */
  stop(): void;
}

export function processMetrics(version: string): ProcessMetrics {
  const startSeconds = (Date.now() - process.uptime() * 1000) / 1000;
  let loop: IntervalHistogram | undefined = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  loop.enable();

  const collector: Collector = () => {
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    const families: FamilySnapshot[] = [
      gauge("mcpwire_gateway_process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", startSeconds),
      counter("mcpwire_gateway_process_cpu_seconds_total", "User and system CPU time of the process, in seconds.", (cpu.user + cpu.system) / 1e6),
      gauge("mcpwire_gateway_process_resident_memory_bytes", "Resident memory of the process (the children not included), in bytes.", memory.rss),
      gauge("mcpwire_gateway_process_heap_used_bytes", "JavaScript heap in use, in bytes.", memory.heapUsed),
    ];
    if (loop !== undefined) {
      // Sampled since the previous scrape, then reset, so a stall shows once and then clears.
      const max = loop.count > 0 ? loop.max / 1e9 : 0;
      const p99 = loop.count > 0 ? loop.percentile(99) / 1e9 : 0;
      loop.reset();
      families.push(gauge("mcpwire_gateway_event_loop_delay_max_seconds", "Longest event-loop delay since the previous scrape, in seconds.", max));
      families.push(gauge("mcpwire_gateway_event_loop_delay_p99_seconds", "99th percentile of the event-loop delay since the previous scrape, in seconds.", p99));
    }
    families.push({
      name: "mcpwire_gateway_build_info",
      help: "Always 1; the labels say which mcpwire and which Node run.",
      type: "gauge",
      samples: [{ name: "mcpwire_gateway_build_info", labels: [["version", version], ["node", process.version]], value: 1 }],
    });
    return families;
  };

  return {
    collector,
    stop() {
      loop?.disable();
      loop = undefined;
    },
  };
}

function gauge(name: string, help: string, value: number): FamilySnapshot {
  return { name, help, type: "gauge", samples: [{ name, labels: [], value }] };
}

function counter(name: string, help: string, value: number): FamilySnapshot {
  return { name, help, type: "counter", samples: [{ name, labels: [], value }] };
}
