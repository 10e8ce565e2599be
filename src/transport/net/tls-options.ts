/**
 * The TLS options of a server, for https:, wss: and an https: proxy: the CAs to trust (`ca`) and
 * a client certificate for mutual TLS (`cert`, `key`, `passphrase`).
 *
 * `ca` ADDS to the default trust, it does not replace it: the certificates given are trusted
 * beside Node's bundled roots and those of `NODE_EXTRA_CA_CERTS` (so a corporate proxy's CA in
 * that variable and a server's own CA in `ca` are both trusted). Node itself would replace the
 * defaults with a `ca`; the list handed to it is therefore the defaults plus the given ones,
 * worked out only when `ca` is given. Without `ca`, Node's default trust is used as it is, which
 * already includes `NODE_EXTRA_CA_CERTS` (read by Node when the process starts).
 *
 * Each of `ca`, `cert`, `key` is PEM text (a string or a Buffer) or `{ file: "<path>" }`, read
 * when a connection is made (a rotated certificate is read anew); `ca` may be a list of them.
 * The shapes are checked when the transport is made, and so is that each file can be read: a
 * missing or unreadable file is the user's configuration, a TypeError naming the option and the
 * path before anything is sent, not a server that could not be reached. A file is read, and the
 * PEM checked, when a connection opens; a file that cannot be read then (gone since) or does not
 * hold PEM is UNAVAILABLE naming it.
 */
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
// node:tls is loaded only when TLS options are given (not at import: a cold start pays for it otherwise).
import type * as TlsModule from "node:tls";
import { McpTransportError } from "../../errors.js";
import { describeValue } from "../../util/whole-number.js";

/** PEM text, or a file that holds it. */
export type PemSource = string | Uint8Array | { file: string };

export interface TlsOptions {
  /**
   * CAs trusted besides the default ones (Node's roots and `NODE_EXTRA_CA_CERTS`): PEM text or
   * `{ file }`, or a list of them. A server whose certificate no trusted CA signed is UNAVAILABLE.
   */
  ca?: PemSource | readonly PemSource[];
  /** The client certificate (chain) for mutual TLS, PEM. Needs `key`. */
  cert?: PemSource;
  /** The private key of `cert`, PEM. Needs `cert`. */
  key?: PemSource;
  /** The passphrase of an encrypted `key`. Needs `key`; never shown. */
  passphrase?: string;
}

/** Every TLS option, as transports list their options. */
export const TLS_OPTION_NAMES = ["ca", "cert", "key", "passphrase"] as const satisfies readonly (keyof TlsOptions)[];

/** The TLS options, checked; undefined when none was given. */
export interface TlsSettings {
  readonly ca: readonly PemSource[] | undefined;
  readonly cert: PemSource | undefined;
  readonly key: PemSource | undefined;
  readonly passphrase: string | undefined;
}

/** What `tls.connect` (and `ws`, and undici's connector) takes, read and ready. */
export interface TlsMaterial {
  ca?: string[];
  cert?: string;
  key?: string;
  passphrase?: string;
}

/** Checks the shapes of the TLS options; a wrong one is a TypeError naming it and what is taken. */
export function checkTlsOptions(options: TlsOptions, where: string): TlsSettings | undefined {
  const { ca, cert, key, passphrase } = options;
  if (ca === undefined && cert === undefined && key === undefined && passphrase === undefined) return undefined;
  const list = ca === undefined ? undefined : Array.isArray(ca) ? (ca as readonly unknown[]) : [ca];
  if (list !== undefined) {
    if (list.length === 0) throw new TypeError(`${where}: "ca" is an empty list; give PEM text or { file: "<path>" }, or leave it out`);
    list.forEach((item, index) => checkPemSource(item, Array.isArray(ca) ? `ca[${index}]` : "ca", where));
  }
  if (cert !== undefined) checkPemSource(cert, "cert", where);
  if (key !== undefined) checkPemSource(key, "key", where);
  if (cert !== undefined && key === undefined) {
    throw new TypeError(`${where}: "cert" needs its private key in "key" (mutual TLS takes both)`);
  }
  if (key !== undefined && cert === undefined) {
    throw new TypeError(`${where}: "key" needs the client certificate it belongs to in "cert" (mutual TLS takes both)`);
  }
  if (passphrase !== undefined) {
    if (typeof passphrase !== "string") throw new TypeError(`${where}: "passphrase" must be a string`);
    if (key === undefined) throw new TypeError(`${where}: "passphrase" unlocks "key", which is not given`);
  }
  return { ca: list as PemSource[] | undefined, cert, key, passphrase };
}

function checkPemSource(value: unknown, name: string, where: string): void {
  if (typeof value === "string") {
    if (value.trim() === "") throw new TypeError(`${where}: "${name}" is empty; give PEM text or { file: "<path>" }`);
    // Text that is not PEM is most often a path given where { file } was meant.
    if (!value.includes("-----BEGIN")) {
      throw new TypeError(`${where}: "${name}" is not PEM text (no "-----BEGIN" line); to read a file give { file: "<path>" }`);
    }
    return;
  }
  if (value instanceof Uint8Array) return;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const file = (value as { file?: unknown }).file;
    if (Object.keys(value).length === 1 && typeof file === "string" && file !== "") return;
  }
  throw new TypeError(`${where}: "${name}" must be PEM text (a string or a Buffer) or { file: "<path>" }, got ${describeValue(value)}`);
}

/** Why the file at `path` cannot be read as a PEM file (ENOENT, EACCES, EISDIR...), or undefined when it can. */
export function fileReadProblem(path: string): string | undefined {
  try {
    // A folder passes the access check but not the read; it is said as such.
    if (statSync(path).isDirectory()) return "EISDIR";
    accessSync(path, fsConstants.R_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "unreadable";
  }
}

/** Refuses, as a TypeError naming the option and the path, a TLS file that cannot be read when the transport is made. */
export function checkTlsFiles(settings: TlsSettings | undefined, where: string): void {
  if (settings === undefined) return;
  const named: [string, PemSource | undefined][] = [
    ...(settings.ca ?? []).map((source, index): [string, PemSource] => [settings.ca!.length > 1 ? `ca[${index}]` : "ca", source]),
    ["cert", settings.cert],
    ["key", settings.key],
  ];
  for (const [option, source] of named) {
    // PEM given as text has no file to read.
    if (typeof source !== "object" || source === null || source instanceof Uint8Array) continue;
    const code = fileReadProblem(source.file);
    if (code !== undefined) throw new TypeError(`${where}: the "${option}" file ${source.file} could not be read (${code}); give the path of a readable PEM file`);
  }
}

/**
 * The TLS material for one connection: files read, PEM checked, and `ca` joined to the default
 * trust. `env` is where `NODE_EXTRA_CA_CERTS` is read when this Node cannot say its defaults.
 */
export async function loadTls(settings: TlsSettings | undefined, env: Readonly<Record<string, string | undefined>> = process.env): Promise<TlsMaterial | undefined> {
  if (settings === undefined) return undefined;
  const tls = await import("node:tls");
  const material: TlsMaterial = {};
  if (settings.ca !== undefined) {
    const given = await Promise.all(settings.ca.map((source, index) => readPem(source, settings.ca!.length > 1 ? `ca[${index}]` : "ca")));
    material.ca = [...(await defaultTrust(tls, env)), ...given.flatMap(splitCertificates)];
  }
  if (settings.cert !== undefined) material.cert = await readPem(settings.cert, "cert");
  if (settings.key !== undefined) material.key = await readPem(settings.key, "key");
  if (settings.passphrase !== undefined) material.passphrase = settings.passphrase;
  try {
    // Every PEM problem (a bad CA, a key that does not unlock or does not match) shows here, once,
    // rather than as an obscure failure of each handshake.
    tls.createSecureContext(material);
  } catch (cause) {
    throw new McpTransportError("UNAVAILABLE", `the TLS options could not be used (${tlsOptionsProblem(cause)})`, {
      // Only the code: OpenSSL's text may quote the material.
      cause: new Error((cause as NodeJS.ErrnoException).code ?? "invalid TLS material"),
    });
  }
  return material;
}

function tlsOptionsProblem(cause: unknown): string {
  const code = String((cause as NodeJS.ErrnoException)?.code ?? "");
  const text = String((cause as Error)?.message ?? "");
  if (/bad decrypt|BAD_DECRYPT|passphrase/i.test(`${code} ${text}`)) return `"key" could not be unlocked: check "passphrase"`;
  if (/KEY_VALUES_MISMATCH|key values mismatch/i.test(`${code} ${text}`)) return `"key" is not the private key of "cert"`;
  if (/KEY|key/.test(code)) return `"key" is not a PEM private key`;
  return `"ca", "cert" or "key" is not valid PEM`;
}

/** The certificates Node trusts by default: its roots and NODE_EXTRA_CA_CERTS (and the system's, when Node was told to). */
async function defaultTrust(tls: typeof TlsModule, env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
  const getCACertificates = (tls as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
  // Node 22.15 and later say it themselves, including --use-system-ca.
  if (typeof getCACertificates === "function") return getCACertificates("default");
  const extraFile = env.NODE_EXTRA_CA_CERTS;
  let extra: string[] = [];
  if (extraFile !== undefined && extraFile !== "") {
    try {
      extra = splitCertificates(await readFile(extraFile, "utf8"));
    } catch {
      // Node warns about an unreadable NODE_EXTRA_CA_CERTS at start and goes on without it; so do we.
    }
  }
  return [...tls.rootCertificates, ...extra];
}

/** The CERTIFICATE blocks of a PEM bundle, each on its own, as `tls` takes a list of CAs. */
function splitCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

async function readPem(source: PemSource, name: string): Promise<string> {
  let text: string;
  if (typeof source === "string") text = source;
  else if (source instanceof Uint8Array) text = Buffer.from(source).toString("utf8");
  else {
    try {
      text = await readFile(source.file, "utf8");
    } catch (cause) {
      throw new McpTransportError("UNAVAILABLE", `the "${name}" file ${source.file} could not be read (${(cause as NodeJS.ErrnoException).code ?? "error"})`, {
        cause: new Error((cause as NodeJS.ErrnoException).code ?? "read failed"),
      });
    }
    if (!text.includes("-----BEGIN")) {
      throw new McpTransportError("UNAVAILABLE", `the "${name}" file ${source.file} holds no PEM text (no "-----BEGIN" line)`);
    }
  }
  return text;
}
