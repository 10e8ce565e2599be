/**
 * What the target string of the command line means, decided in this order:
 *
 * 1. a URL (`http://`, `https://`, `ws://`, `wss://`): that endpoint;
 * 2. a word without spaces that a config file declares as a server (the file given with
 *    `--config`, or the first found in the usual places; see src/config/locations.ts), or that
 *    `MCPWIRE_SERVER_<NAME>_*` variables describe: that server's declaration;
 * 3. anything else: a command line, split like a POSIX shell splits words and run without one.
 *
 * A target with spaces is always a command line, so that a broken config file found somewhere
 * never stands in the way of running a server by its command.
 */
import { defaultEnvAllow } from "../transport/stdio/stdio.js";
import { configFileCandidates } from "../config/locations.js";
import { hasEnvOverrides } from "../config/env-overrides.js";
import { loadServerConfig, loadServersFile } from "../config/load.js";
import type { McpServerConfig } from "../config/server-config.js";
import { configForString } from "../config/targets.js";
import { UsageError } from "./usage.js";

export type TargetKind = "url" | "server" | "command";

export interface CliTarget {
  kind: TargetKind;
  /** The declaration given to `connect()`, with `--env-allow` applied. */
  config: McpServerConfig;
  /** How the target was understood, for `--verbose`. */
  understoodAs: string;
  /**
   * For a one-word command that would not start: the note that no config file declares a server
   * of that name, in case a name was meant.
   */
  notAServerNote?: string;
}

export interface TargetContext {
  configFile?: string;
  /** Names added to a stdio server's inherited variables (`--env-allow`). */
  envAllow: readonly string[];
  /** Whether `--header` was given (it applies to URL servers only). */
  hasHeaders: boolean;
  /** The proxy and TLS flags given (`--proxy`, `--ca`...; URL servers only). */
  networkFlags?: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
}

export async function resolveCliTarget(text: string, context: TargetContext): Promise<CliTarget> {
  const target = await classify(text, context);
  return checkOptionsFit(withEnvAllow(target, context.envAllow), context);
}

async function classify(text: string, context: TargetContext): Promise<CliTarget> {
  const plain = configForString(text);
  if (plain.transport !== "stdio") return { kind: "url", config: plain, understoodAs: `${plain.transport} endpoint ${plain.url}` };
  if (/\s/.test(text)) return { kind: "command", config: plain, understoodAs: `command line ${describeArgv(plain)}` };

  const locations = { configFile: context.configFile, cwd: context.cwd, env: context.env };
  const file = await loadServersFile(locations);
  const declared = file !== undefined && (Object.hasOwn(file.servers, text) || file.disabled.includes(text));
  if (declared || hasEnvOverrides(text, context.env)) {
    // Read through the one precedence (defaults < file < environment); the same file, not a search again.
    const config = await loadServerConfig(text, { ...locations, configFile: file?.source ?? context.configFile });
    const from = declared ? file!.source : "the environment";
    return { kind: "server", config, understoodAs: `server "${text}" from ${from} (${config.transport})` };
  }
  const known = file ? Object.keys(file.servers) : [];
  const notAServerNote = file
    ? `${file.source} declares no server "${text}"${known.length > 0 ? ` (it declares ${known.map((n) => `"${n}"`).join(", ")})` : ""}`
    : `no config file declares a server "${text}" (looked for ${configFileCandidates(locations).join(", ")})`;
  return { kind: "command", config: plain, understoodAs: `command line ${describeArgv(plain)}`, notAServerNote };
}

function withEnvAllow(target: CliTarget, extra: readonly string[]): CliTarget {
  if (extra.length === 0 || target.config.transport !== "stdio") return target;
  const names = [...new Set([...(target.config.envAllow ?? defaultEnvAllow()), ...extra])];
  return { ...target, config: { ...target.config, envAllow: names } };
}

function checkOptionsFit(target: CliTarget, context: TargetContext): CliTarget {
  // Only a one-word target is looked up by name; for a URL or a command line the file is never read.
  if (context.configFile !== undefined && target.kind !== "server" && target.notAServerNote === undefined) {
    throw new UsageError(
      `--config applies to a server named in the file; this target is the ${target.understoodAs}` +
        " (a target with spaces is always a command line, a URL always an endpoint)",
    );
  }
  const stdio = target.config.transport === "stdio";
  if (stdio && context.hasHeaders) {
    throw new UsageError(`--header applies to servers reached by URL; this target is the ${target.understoodAs}`);
  }
  if (stdio && (context.networkFlags ?? []).length > 0) {
    throw new UsageError(`${context.networkFlags!.join(", ")} ${context.networkFlags!.length > 1 ? "apply" : "applies"} to servers reached by URL; this target is the ${target.understoodAs}`);
  }
  if (!stdio && context.envAllow.length > 0) {
    throw new UsageError(`--env-allow applies to servers run as a command; this target is the ${target.understoodAs}`);
  }
  return target;
}

function describeArgv(config: McpServerConfig): string {
  return [config.command!, ...(config.args ?? [])].map((word) => (/[\s"'\\]/.test(word) ? JSON.stringify(word) : word)).join(" ");
}
