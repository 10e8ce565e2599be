/** The readiness as metrics, so a dashboard shows when and why a replica left the rotation. */
import type { Collector } from "./metric-registry.js";
import type { Readiness } from "./readiness.js";

export function readinessCollector(readiness: Readiness): Collector {
  return () => [
    {
      name: "mcpwire_gateway_ready",
      help: "1 while /readyz answers 200, else 0.",
      type: "gauge",
      samples: [{ name: "mcpwire_gateway_ready", labels: [], value: readiness.state().ready ? 1 : 0 }],
    },
    {
      name: "mcpwire_gateway_draining",
      help: "1 once the drain began (SIGTERM), else 0.",
      type: "gauge",
      samples: [{ name: "mcpwire_gateway_draining", labels: [], value: readiness.draining ? 1 : 0 }],
    },
  ];
}
