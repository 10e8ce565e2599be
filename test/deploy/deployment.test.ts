/**
 * deploy/k8s/deployment.yaml, checked for what a cluster needs of it: probes on the admin
 * endpoints, a grace period the drain fits in, a memory limit the children fit in, a restricted
 * security context, the secrets the children are allowed, and nothing the gateway would refuse.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FRONT_CLOSE_GRACE_MS } from "../../src/gateway/gateway.js";
import { DEFAULT_STDIN_CLOSE_GRACE_MS, DEFAULT_TERMINATE_GRACE_MS, KILL_WAIT_MS } from "../../src/transport/stdio/process-tree.js";
import { CONFIGMAP_NAME, gatewaySettings, portOf } from "./gateway-settings.js";
import { K8S, at, manifest, measuredChildRss, memoryBytes, type Json } from "./manifests.js";
import { MIB, memoryBudgetBytes } from "./memory-budget.js";

const deployment = manifest("Deployment", "mcpwire-gateway");
const pod = at(deployment, "spec", "template", "spec");
const containers = pod.containers as Json[];
const gateway = containers[0]!;
const settings = gatewaySettings();

function containerPort(name: unknown): number {
  const port = (gateway.ports as Json[]).find((p) => p.name === name || p.containerPort === name);
  if (!port) throw new Error(`the container has no port ${String(name)}`);
  return port.containerPort as number;
}

describe("the Deployment", () => {
  it("runs two replicas and replaces them one at a time, a new one ready before an old one goes", () => {
    expect(at(deployment, "spec").replicas).toBe(2);
    const strategy = at(deployment, "spec", "strategy");
    expect(strategy.type).toBe("RollingUpdate");
    expect(at(strategy, "rollingUpdate").maxUnavailable).toBe(0);
    expect(at(strategy, "rollingUpdate").maxSurge).toBeGreaterThanOrEqual(1);
  });

  it("has one container, whose ports are the gateway's MCP and admin ports", () => {
    expect(containers).toHaveLength(1);
    expect(containerPort("mcp")).toBe(portOf(settings.listen));
    expect(settings.adminListen).toBeDefined();
    expect(containerPort("admin")).toBe(portOf(settings.adminListen!));
  });

  it("probes startup and readiness on /readyz and liveness on /healthz, all on the admin port", () => {
    const probe = (name: string) => at(gateway, name, "httpGet");
    for (const [name, path] of [
      ["startupProbe", "/readyz"],
      ["readinessProbe", "/readyz"],
      ["livenessProbe", "/healthz"],
    ] as const) {
      expect(probe(name).path, name).toBe(path);
      expect(containerPort(probe(name).port), name).toBe(portOf(settings.adminListen!));
      expect(containerPort(probe(name).port), name).not.toBe(portOf(settings.listen));
    }
  });

  it("gives a SIGTERM longer than the drain delay, the drain, the front's close and the children's close ladder", () => {
    const ladder = DEFAULT_STDIN_CLOSE_GRACE_MS + DEFAULT_TERMINATE_GRACE_MS + KILL_WAIT_MS;
    const drainAndStop = settings.drainDelayMs + settings.drainMs + FRONT_CLOSE_GRACE_MS + ladder;
    expect((pod.terminationGracePeriodSeconds as number) * 1000).toBeGreaterThan(drainAndStop);
  });

  it("sets a memory limit at least the formula's, from the measured child RSS and the ConfigMap's ceilings", () => {
    const measured = measuredChildRss();
    const budget = memoryBudgetBytes({
      driverRssBytes: measured.driverRssMiB * MIB,
      childRssBytes: measured.childRssMiB.max * MIB,
      ...settings,
    });
    const resources = at(gateway, "resources");
    const limit = memoryBytes(at(resources, "limits").memory);
    expect(limit).toBeGreaterThanOrEqual(budget);
    // The Guaranteed class: evicted last when the node runs short.
    expect(memoryBytes(at(resources, "requests").memory)).toBe(limit);
  });

  it("writes the measured figures it was sized from in its comment", () => {
    const text = readFileSync(`${K8S}deployment.yaml`, "utf8");
    const measured = measuredChildRss();
    expect(text).toContain(`Node ${measured.node}`);
    expect(text).toContain(`${measured.childRssMiB.max} MiB the largest child`);
    expect(text).toContain(`${measured.driverRssMiB} MiB the process driving them`);
  });

  it("runs restricted: non-root by number, no privilege escalation, no capabilities, read-only root, the runtime's seccomp profile", () => {
    const podContext = at(pod, "securityContext");
    const context = at(gateway, "securityContext");
    expect(podContext.runAsNonRoot).toBe(true);
    expect(context.runAsNonRoot).toBe(true);
    for (const c of [podContext, context]) {
      expect(Number.isInteger(c.runAsUser)).toBe(true);
      expect(c.runAsUser).toBeGreaterThan(0);
      expect(at(c, "seccompProfile").type).toBe("RuntimeDefault");
    }
    expect(context.allowPrivilegeEscalation).toBe(false);
    expect(context.readOnlyRootFilesystem).toBe(true);
    expect(at(context, "capabilities").drop).toEqual(["ALL"]);
    expect(at(context, "capabilities").add).toBeUndefined();
    expect(pod.hostNetwork ?? false).toBe(false);
    expect(pod.hostPID ?? false).toBe(false);
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it("mounts a writable emptyDir on /tmp, the only place the image writes to", () => {
    const mounts = gateway.volumeMounts as Json[];
    const tmp = mounts.find((m) => m.mountPath === "/tmp");
    expect(tmp).toBeDefined();
    const volume = (pod.volumes as Json[]).find((v) => v.name === tmp!.name)!;
    expect(volume.emptyDir).toBeDefined();
    expect(tmp!.readOnly ?? false).toBe(false);
  });

  it("takes every MCPWIRE_GATEWAY_* variable from the ConfigMap, and sets none of its own", () => {
    expect(gateway.envFrom).toEqual([{ configMapRef: { name: CONFIGMAP_NAME } }]);
    const own = (gateway.env as Json[]).map((e) => String(e.name));
    expect(own.filter((name) => name.startsWith("MCPWIRE_GATEWAY_"))).toEqual([]);
  });

  it("turns off service links, whose MCPWIRE_GATEWAY_PORT and _SERVICE_* variables the gateway would refuse", () => {
    expect(pod.enableServiceLinks).toBe(false);
  });

  it("sets every variable the children's allowlist names, and takes from Secrets only allowlisted ones", () => {
    const env = gateway.env as Json[];
    expect(settings.envAllow.length).toBeGreaterThan(0);
    for (const name of settings.envAllow) expect(env.map((e) => e.name), `${name} is set`).toContain(name);
    // A secret no child may read has no business in the gateway's environment.
    const fromSecrets = env.filter((e) => (e.valueFrom as Json | undefined)?.secretKeyRef);
    expect(fromSecrets.length).toBeGreaterThan(0);
    for (const variable of fromSecrets) expect(settings.envAllow).toContain(variable.name);
    for (const variable of fromSecrets) {
      const ref = at(variable, "valueFrom", "secretKeyRef");
      const secret = manifest("Secret", String(ref.name));
      expect(Object.keys(at(secret, "stringData")), `${String(ref.name)} has ${String(ref.key)}`).toContain(ref.key);
    }
  });

  it("mounts the token file from a Secret, read-only, at the path MCPWIRE_GATEWAY_TOKEN_FILE names", () => {
    expect(settings.tokenFile).toBeDefined();
    const mounts = gateway.volumeMounts as Json[];
    const mount = mounts.find((m) => settings.tokenFile!.startsWith(`${String(m.mountPath)}/`));
    expect(mount, "a mount holding the token file").toBeDefined();
    expect(mount!.readOnly).toBe(true);
    const volume = (pod.volumes as Json[]).find((v) => v.name === mount!.name)!;
    const secret = at(volume, "secret");
    const item = (secret.items as Json[]).find((i) => `${String(mount!.mountPath)}/${String(i.path)}` === settings.tokenFile);
    expect(item, "the Secret's key projected at that path").toBeDefined();
    expect(Object.keys(at(manifest("Secret", String(secret.secretName)), "stringData"))).toContain(item!.key);
    // Read by the owner and the group only (0440), never written.
    expect((secret.defaultMode as number) & 0o137).toBe(0);
  });
});
