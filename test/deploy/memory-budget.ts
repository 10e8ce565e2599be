/**
 * The memory a gateway replica may need at worst, by the formula written in
 * deploy/k8s/deployment.yaml: what the container's memory limit must cover.
 */
export const MIB = 2 ** 20;
/** A child grows with work past what it holds idle, as measured. */
export const CHILD_GROWTH = 1.25;
/** A message is held as its bytes and as its parsed JSON. */
export const MESSAGE_COPIES = 2;

export interface BudgetInputs {
  /** The process that drives the children, as measured (deploy/child-rss.json). */
  driverRssBytes: number;
  /** The largest child, as measured. */
  childRssBytes: number;
  legacy: "session" | "stateless";
  poolMax: number;
  maxSessions: number;
  maxRequests: number;
  maxQueue: number;
  maxBodyBytes: number;
  childMaxMessageBytes: number;
}

/**
 * How many children may run at once: each pool (the 2026-07-28 one, and in stateless mode the
 * legacy one beside it, src/gateway/default-children.ts) with one recycled child overlapping its
 * replacement, and in session mode each session's own.
 */
export function childrenAtMost(inputs: BudgetInputs): number {
  const pools = inputs.legacy === "stateless" ? 2 : 1;
  return pools * (inputs.poolMax + 1) + (inputs.legacy === "session" ? inputs.maxSessions : 0);
}

export function memoryBudgetBytes(inputs: BudgetInputs): number {
  const children = childrenAtMost(inputs) * inputs.childRssBytes * CHILD_GROWTH;
  const bodies = MESSAGE_COPIES * (inputs.maxRequests + inputs.maxQueue) * inputs.maxBodyBytes;
  const answers = MESSAGE_COPIES * inputs.maxRequests * inputs.childMaxMessageBytes;
  return inputs.driverRssBytes + children + bodies + answers;
}
