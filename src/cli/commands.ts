/**
 * The commands: each one asks the connected client one thing and prints the answer, for people
 * (see render.ts) or, with `--json`, as one JSON document on stdout.
 */
import type { McpClient } from "../client/client.js";
import type { TaskState } from "../client/tasks/task-state.js";
import { McpTransportError } from "../errors.js";
import { JSONRPC_METHOD_NOT_FOUND } from "../protocol/jsonrpc.js";
import type { ResourceTemplate } from "../protocol/schemas.js";
import type { Progress } from "../session/session.js";
import type { CommandName } from "./args.js";
import { parsePromptArguments, parseToolArguments } from "./call-arguments.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import {
  forTerminal,
  keyValues,
  oneLine,
  renderPrompt,
  renderPrompts,
  renderResourceContents,
  renderResources,
  renderToolResult,
  renderTools,
  type RenderContext,
} from "./render.js";

export interface CommandContext {
  client: McpClient;
  json: boolean;
  render: RenderContext;
  /** Writes to stdout. */
  write(text: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Called for each progress notification of a long call. */
  onProgress(progress: Progress): void;
  /** Called with each new state of a call that runs as a task. */
  onTaskStatus(state: TaskState): void;
}

/** What a command leaves to say on stderr besides its output (the tool's own failure). */
export interface CommandOutcome {
  code: ExitCodeValue;
  note?: string;
}

export type Command = (context: CommandContext) => Promise<CommandOutcome>;

const OK: CommandOutcome = { code: ExitCode.OK };

function printJson(context: CommandContext, value: unknown): void {
  context.write(`${JSON.stringify(value, null, 2)}\n`);
}

const tools = (): Command => async (context) => {
  const { client, signal } = context;
  const list = client.serverCapabilities.tools ? await client.listTools({ signal }) : [];
  if (context.json) printJson(context, { tools: list });
  else context.write(client.serverCapabilities.tools ? renderTools(list, context.render) : "The server offers no tools.\n");
  return OK;
};

const call = ([name, ...rest]: readonly string[]): Command => {
  const args = parseToolArguments(rest);
  return async (context) => {
    // A tool that runs as a task is waited for to its result, its state on the progress line.
    const result = await context.client.callTool(name!, args, {
      signal: context.signal,
      onProgress: context.onProgress,
      onTaskStatus: context.onTaskStatus,
    });
    if (context.json) printJson(context, result);
    else context.write(renderToolResult(result, context.render));
    if (result.isError) return { code: ExitCode.TOOL_ERROR, note: `tool ${JSON.stringify(name)} reported an error (isError: true)` };
    return OK;
  };
};

const resources = (): Command => async (context) => {
  const { client, signal } = context;
  if (!client.serverCapabilities.resources) {
    if (context.json) printJson(context, { resources: [], resourceTemplates: [] });
    else context.write("The server offers no resources.\n");
    return OK;
  }
  const list = await client.listResources({ signal });
  const templates = await listTemplates(client, signal);
  if (context.json) printJson(context, { resources: list, resourceTemplates: templates });
  else context.write(renderResources(list, templates, context.render));
  return OK;
};

/** Templates are optional for a server with resources: "method not found" means it has none. */
async function listTemplates(client: McpClient, signal: AbortSignal): Promise<ResourceTemplate[]> {
  try {
    return await client.listResourceTemplates({ signal });
  } catch (error) {
    if (error instanceof McpTransportError && error.code === JSONRPC_METHOD_NOT_FOUND) return [];
    throw error;
  }
}

const read = ([uri]: readonly string[]): Command => async (context) => {
  const result = await context.client.readResource(uri!, { signal: context.signal });
  if (context.json) printJson(context, result);
  else context.write(renderResourceContents(result, context.render));
  return OK;
};

const prompts = (): Command => async (context) => {
  const { client, signal } = context;
  const list = client.serverCapabilities.prompts ? await client.listPrompts({ signal }) : [];
  if (context.json) printJson(context, { prompts: list });
  else context.write(client.serverCapabilities.prompts ? renderPrompts(list, context.render) : "The server offers no prompts.\n");
  return OK;
};

const prompt = ([name, ...rest]: readonly string[]): Command => {
  const args = parsePromptArguments(rest);
  return async (context) => {
    const result = await context.client.getPrompt(name!, args, { signal: context.signal });
    if (context.json) printJson(context, result);
    else context.write(renderPrompt(result, context.render));
    return OK;
  };
};

const ping = (): Command => async (context) => {
  const started = performance.now();
  await context.client.ping({ signal: context.signal });
  const ms = Math.round(performance.now() - started);
  if (context.json) printJson(context, { ok: true, ms });
  else context.write(`pong (${ms} ms)\n`);
  return OK;
};

const info = (): Command => async (context) => {
  const { client } = context;
  const summary = {
    serverInfo: client.serverInfo,
    protocolVersion: client.protocolVersion,
    era: client.era,
    transport: client.transportKind,
    capabilities: client.serverCapabilities,
    ...(client.instructions === undefined ? {} : { instructions: client.instructions }),
  };
  if (context.json) {
    printJson(context, summary);
    return OK;
  }
  const { name, version, title } = client.serverInfo;
  const pairs: [string, string][] = [
    ["Server", oneLine(`${title ?? name} ${version}${title && title !== name ? ` (${name})` : ""}`)],
    ["Protocol", `${oneLine(client.protocolVersion)} (${client.era} era)`],
    ["Transport", client.transportKind],
    ["Capabilities", describeCapabilities(client.serverCapabilities) || "none"],
  ];
  context.write(keyValues(pairs));
  // Instructions are prose written for a model, often several paragraphs: shown as written.
  if (client.instructions) context.write(`\nInstructions:\n${instructionsText(client.instructions, context.render)}\n`);
  return OK;
};

function instructionsText(text: string, render: RenderContext): string {
  const clean = render.terminal ? forTerminal(text) : text;
  return clean.replace(/\n+$/, "");
}

/** `tools (listChanged), resources (subscribe, listChanged), logging`. */
export function describeCapabilities(capabilities: Record<string, unknown>): string {
  return Object.entries(capabilities)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]) => {
      const flags =
        typeof value === "object" && value !== null
          ? Object.entries(value)
              .filter(([, flag]) => flag === true)
              .map(([flag]) => flag)
          : [];
      return oneLine(flags.length > 0 ? `${name} (${flags.join(", ")})` : name);
    })
    .join(", ");
}

/**
 * `login`: one request that needs the login (the tools list, else a ping), so that a server that
 * lets the handshake through and challenges later still asks for it now.
 */
const login = (): Command => async ({ client, signal }) => {
  if (client.serverCapabilities.tools) await client.listTools({ signal });
  else await client.ping({ signal });
  return OK;
};

/** The commands run on a connected client; `logout` needs no connection (cli/auth/logout.ts). */
export type ConnectedCommandName = Exclude<CommandName, "logout">;

const COMMANDS: Record<ConnectedCommandName, (operands: readonly string[]) => Command> = {
  tools,
  call,
  resources,
  read,
  prompts,
  prompt,
  ping,
  info,
  login,
};

/**
 * The command ready to run, its operands already read: a bad `key=value` is a usage error
 * before any server is started.
 */
export function prepareCommand(name: ConnectedCommandName, operands: readonly string[]): Command {
  return COMMANDS[name](operands);
}
