/**
 * The files of deploy/ as a cluster would read them: the Kubernetes manifests (every YAML document
 * of deploy/k8s/, parsed, a syntax error failing the test), the gateway's variables
 * (deploy/gateway-variables.json), and the figures of deploy/child-rss.json.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DEPLOY = `${ROOT}deploy/`;
export const K8S = `${DEPLOY}k8s/`;

export type Json = Record<string, unknown>;

export interface Manifest {
  file: string;
  kind: string;
  name: string;
  body: Json;
}

/** Every document of every file in deploy/k8s/, in file order. */
export function loadManifests(): Manifest[] {
  const manifests: Manifest[] = [];
  for (const file of readdirSync(K8S).filter((name) => name.endsWith(".yaml")).sort()) {
    for (const document of parseAllDocuments(readFileSync(`${K8S}${file}`, "utf8"))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((e) => e.message).join("; ")}`);
      const body = document.toJS() as Json | null;
      if (!body) continue;
      const metadata = body.metadata as Json | undefined;
      manifests.push({ file, kind: String(body.kind), name: String(metadata?.name), body });
    }
  }
  return manifests;
}

/** The one manifest of this kind (and name, when given); fails when there is none or several. */
export function manifest(kind: string, name?: string, manifests = loadManifests()): Json {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` named ${name}` : ""} in deploy/k8s/, found ${found.length}`);
  return found[0]!.body;
}

/** A field path through objects, e.g. at(deployment, "spec", "template", "spec"). */
export function at(value: unknown, ...path: string[]): Json {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") throw new Error(`no ${path.join(".")}`);
    current = (current as Json)[key];
  }
  if (current === null || typeof current !== "object") throw new Error(`${path.join(".")} is not an object`);
  return current as Json;
}

export interface GatewayVariable {
  name: string;
  flag: string;
  option: string;
  kind: "command" | "names" | "hostPort" | "path" | "count" | "mode" | "stderrMode" | "hosts" | "origins" | "file" | "duration" | "bytes";
}

export function gatewayVariables(): GatewayVariable[] {
  const list = JSON.parse(readFileSync(`${DEPLOY}gateway-variables.json`, "utf8")) as { variables: GatewayVariable[] };
  return list.variables;
}

export interface ChildRss {
  node: string;
  serverVersion?: string;
  children: number;
  childRssMiB: { median: number; max: number };
  childPssMiB: { median: number; max: number };
  driverRssMiB: number;
}

export function measuredChildRss(): ChildRss {
  return JSON.parse(readFileSync(`${DEPLOY}child-rss.json`, "utf8")) as ChildRss;
}

const BINARY_SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL_SUFFIX: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** A Kubernetes memory quantity ("1Gi", "512Mi", "1G", "1048576") in bytes. */
export function memoryBytes(quantity: unknown): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(quantity));
  if (!match) throw new Error(`${JSON.stringify(quantity)} is not a memory quantity`);
  const suffix = match[2] ?? "";
  return Number(match[1]) * (BINARY_SUFFIX[suffix] ?? DECIMAL_SUFFIX[suffix]!);
}
