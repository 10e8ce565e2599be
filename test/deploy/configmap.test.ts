/**
 * deploy/k8s/configmap.yaml: only the gateway's own MCPWIRE_GATEWAY_* names (any other stops the
 * gateway at start), each value of the form its variable takes, and a legacy mode that the
 * replicas and the Service's round robin can serve.
 */
import { describe, expect, it } from "vitest";
import { parseDuration } from "../../src/cli/args.js";
import { configMapData, gatewaySettings } from "./gateway-settings.js";
import { at, gatewayVariables, manifest, type GatewayVariable } from "./manifests.js";

const data = configMapData();
const variables = gatewayVariables();

/** Whether `value` has the form the variable takes (gateway-variables.json, `kind`). */
function wellFormed(kind: GatewayVariable["kind"], value: string): boolean {
  const list = value.split(",").map((item) => item.trim());
  switch (kind) {
    case "count":
    case "bytes":
      return /^\d+$/.test(value) && Number(value) > 0;
    case "duration":
      try {
        return parseDuration(value) > 0;
      } catch {
        return false;
      }
    case "hostPort":
      return /^[^\s:]+:\d{1,5}$/.test(value) && Number(value.split(":")[1]) <= 65535;
    case "path":
    case "file":
      return value.startsWith("/") && !/\s/.test(value);
    case "mode":
      return value === "session" || value === "stateless";
    case "stderrMode":
      return value === "log" || value === "drop";
    case "names":
      return list.every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
    case "hosts":
      return list.every((host) => /^[a-z0-9.-]+(:\d+)?$/.test(host));
    case "origins":
      return list.every((origin) => /^https?:\/\/[a-z0-9.-]+(:\d+)?$/.test(origin));
    case "command":
      return value.trim().length > 0;
  }
}

describe("the gateway's variables (deploy/gateway-variables.json)", () => {
  it("are unique MCPWIRE_GATEWAY_* names, each with its flag", () => {
    const names = variables.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const variable of variables) {
      expect(variable.name).toMatch(/^MCPWIRE_GATEWAY_[A-Z_]+$/);
      expect(variable.flag).toMatch(/^(--[a-z-]+|<target>)$/);
    }
  });
});

describe("the ConfigMap", () => {
  it("holds only the gateway's variables", () => {
    const known = new Set(variables.map((v) => v.name));
    expect(Object.keys(data).filter((name) => !known.has(name))).toEqual([]);
  });

  it("gives each a value of the form that variable takes", () => {
    for (const [name, value] of Object.entries(data)) {
      const variable = variables.find((v) => v.name === name)!;
      expect(wellFormed(variable.kind, value), `${name}=${JSON.stringify(value)} (${variable.kind})`).toBe(true);
    }
  });

  it("listens on every interface, where the Service and the kubelet reach the pod, and names the Host values it accepts", () => {
    const settings = gatewaySettings();
    expect(settings.listen.startsWith("0.0.0.0:")).toBe(true);
    expect(settings.adminListen?.startsWith("0.0.0.0:")).toBe(true);
    // A non-loopback listen without allowed hosts refuses to start (DNS rebinding).
    expect(settings.allowedHosts.length).toBeGreaterThan(0);
    const service = manifest("Service", "mcpwire-gateway");
    expect(settings.allowedHosts).toContain(String(at(service, "metadata").name));
  });

  it("serves legacy callers statelessly while more than one replica sits behind round robin", () => {
    const replicas = at(manifest("Deployment", "mcpwire-gateway"), "spec").replicas as number;
    const affinity = at(manifest("Service", "mcpwire-gateway"), "spec").sessionAffinity ?? "None";
    if (replicas > 1 && affinity === "None") expect(gatewaySettings().legacy).toBe("stateless");
  });

  it("sets no MCPWIRE_GATEWAY_TARGET, so the entrypoint runs the server installed in the image", () => {
    expect(data.MCPWIRE_GATEWAY_TARGET).toBeUndefined();
  });

  it("names in the children's allowlist no variable of the gateway itself", () => {
    for (const name of gatewaySettings().envAllow) expect(name.startsWith("MCPWIRE_")).toBe(false);
  });
});

describe("the list of variables, against the gateway's CLI", () => {
  it("names every flag the gateway's help lists, each with the variable the CLI derives from it", async () => {
    const { GATEWAY_HELP, variableOf } = await import("../../src/cli/gateway/http-gateway-cli.js");
    const helpFlags = new Set([...GATEWAY_HELP.matchAll(/--([a-z][a-z-]+)/g)].map((m) => m[1]!).filter((flag) => !["help", "stdio"].includes(flag)));
    const listed = variables.filter((v) => v.flag.startsWith("--"));
    expect(new Set(listed.map((v) => v.flag.slice(2)))).toEqual(helpFlags);
    for (const variable of listed) expect(variableOf(variable.flag.slice(2))).toBe(variable.name);
  });

  it("holds only names the CLI accepts, and the ConfigMap's values are read without complaint", async () => {
    const { gatewayOptionsFrom } = await import("../../src/cli/gateway/http-gateway-cli.js");
    expect(() => gatewayOptionsFrom([], { ...data, MCPWIRE_GATEWAY_TARGET: "server" })).not.toThrow();
    // The CLI refuses a name outside the list, which is what makes the first check above mean something.
    expect(() => gatewayOptionsFrom([], { ...data, MCPWIRE_GATEWAY_TARGET: "server", MCPWIRE_GATEWAY_POOL_MAXIMUM: "4" })).toThrow(/unknown variable MCPWIRE_GATEWAY_POOL_MAXIMUM/);
  });
});
