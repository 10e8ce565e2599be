/**
 * What the gateway runs as a child, and the `StdioTransport` that runs it. Children are spawned
 * the way the stdio transport spawns any server (argv without a shell, own process group, an
 * environment allowlist, the close ladder): the gateway adds nothing of its own to spawning.
 */
import { splitCommandLine } from "../../config/shell-words.js";
import { StdioTransport, defaultEnvAllow, type StderrDestination } from "../../transport/stdio/stdio.js";
import type { GatewayTarget } from "../gateway-options.js";

/** One stdio server as the children side runs it: an argv, its variables and allowlist. */
export interface ChildCommand {
  command: string;
  args: readonly string[];
  /** Variables set for the child, on top of the inherited ones. */
  env: Readonly<Record<string, string>>;
  /** Variables of the gateway's environment the child inherits (the platform's default list included). */
  envAllow: readonly string[];
  cwd?: string;
}

/** The waits of the close ladder, in ms: stdin EOF, then SIGTERM, then SIGKILL to the group. */
export interface ChildStopTimings {
  /** @default the stdio transport's (2 s) */
  stdinCloseGraceMs?: number;
  /** @default the stdio transport's (5 s) */
  terminateGraceMs?: number;
}

/**
 * The command of a gateway target: a command line is split as a shell would split words, without
 * a shell (`config/shell-words.ts`, which refuses pipes and expansions); `envAllow` is added to
 * the platform's default list, as the option says ("beside the default list").
 */
export function childCommandFor(target: GatewayTarget): ChildCommand {
  if (typeof target === "string") {
    const [command, ...args] = splitCommandLine(target);
    if (command === undefined) throw new TypeError("gateway target: the command line is empty; give the program to run and its arguments");
    return { command, args, env: {}, envAllow: [...defaultEnvAllow()] };
  }
  return {
    command: target.command,
    args: [...(target.args ?? [])],
    env: { ...(target.env ?? {}) },
    envAllow: [...new Set([...defaultEnvAllow(), ...(target.envAllow ?? [])])],
    cwd: target.cwd,
  };
}

/** The same command with a principal's variables over the target's (legacy session mode). */
export function withEnv(command: ChildCommand, env: Readonly<Record<string, string>> | undefined): ChildCommand {
  return env ? { ...command, env: { ...command.env, ...env } } : command;
}

/**
 * The stdio transport that spawns `command`. Its stderr is drained and its tail kept; it goes to
 * `stderr` too when given (child-stderr.ts makes JSON log lines of it), never to the gateway's
 * own stderr as it is.
 */
export function transportFor(command: ChildCommand, timings: ChildStopTimings = {}, stderr?: StderrDestination): StdioTransport {
  return new StdioTransport({
    command: command.command,
    args: command.args,
    env: { ...command.env },
    envAllow: command.envAllow,
    ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
    ...(timings.stdinCloseGraceMs === undefined ? {} : { stdinCloseGraceMs: timings.stdinCloseGraceMs }),
    ...(timings.terminateGraceMs === undefined ? {} : { terminateGraceMs: timings.terminateGraceMs }),
    ...(stderr === undefined ? {} : { stderr }),
  });
}
