/**
 * deploy/k8s/service.yaml and pdb.yaml: they select the Deployment's pods, the Service reaches
 * the MCP port only and balances plainly, and the budget lets a node drain go on while one
 * replica keeps serving.
 */
import { describe, expect, it } from "vitest";
import { at, manifest, type Json } from "./manifests.js";

const deployment = manifest("Deployment", "mcpwire-gateway");
const podLabels = at(deployment, "spec", "template", "metadata", "labels");
const ports = at(deployment, "spec", "template", "spec").containers as Json[];
const containerPorts = ports[0]!.ports as Json[];

function selects(selector: Json): boolean {
  return Object.entries(selector).every(([key, value]) => podLabels[key] === value);
}

describe("the Service", () => {
  const service = manifest("Service", "mcpwire-gateway");
  const spec = at(service, "spec");

  it("selects the Deployment's pods", () => {
    expect(selects(at(spec, "selector"))).toBe(true);
    expect(selects(at(deployment, "spec", "selector", "matchLabels"))).toBe(true);
  });

  it("reaches the MCP port and not the admin one", () => {
    const targets = (spec.ports as Json[]).map((p) => containerPorts.find((c) => c.name === p.targetPort || c.containerPort === p.targetPort)?.name);
    expect(targets).toEqual(["mcp"]);
  });

  it("balances plainly, with no client-IP affinity", () => {
    expect(spec.sessionAffinity ?? "None").toBe("None");
  });
});

describe("the PodDisruptionBudget", () => {
  const budget = at(manifest("PodDisruptionBudget", "mcpwire-gateway"), "spec");
  const replicas = at(deployment, "spec").replicas as number;

  it("selects the Deployment's pods", () => {
    expect(selects(at(budget, "selector", "matchLabels"))).toBe(true);
  });

  it("lets one replica go at a time and keeps at least one serving", () => {
    const allowed = budget.maxUnavailable !== undefined ? (budget.maxUnavailable as number) : replicas - (budget.minAvailable as number);
    expect(allowed).toBeGreaterThanOrEqual(1);
    expect(replicas - allowed).toBeGreaterThanOrEqual(1);
  });
});
