/**
 * The latest word on the server's tools, for the checks a call needs before or after it is sent:
 * a tool's `outputSchema` (output-schema.ts) and its `execution.taskSupport` (tasks/).
 *
 * Every `listTools()` (or page) is remembered here, a tool not seen yet is listed on demand (one
 * listing shared by concurrent callers), and a list-changed notification forgets them all.
 */
import { McpTransportError } from "../errors.js";
import { JSONRPC_METHOD_NOT_FOUND } from "../protocol/jsonrpc.js";
import type { Tool } from "../protocol/schemas.js";

/**
 * Whether a failed `tools/list` says the server lists no tools at all (JSON-RPC -32601, method
 * not found), which holds until the list changes, rather than that this one listing failed.
 */
export function listsNoTools(error: unknown): boolean {
  return error instanceof McpTransportError && error.kind === "server_error" && error.code === JSONRPC_METHOD_NOT_FOUND;
}

export class ToolCatalog {
  /** Tool name → the tool as the latest listing described it. */
  private readonly tools = new Map<string, Tool>();
  /** Whether a whole listing came since the last change: a tool it does not name does not exist. */
  private complete = false;
  private listing: Promise<readonly Tool[]> | undefined;
  private changes = 0;

  /** Counts list changes: a listing that started before one is not remembered. */
  get generation(): number {
    return this.changes;
  }

  /**
   * A listing returned: the latest word on the tools it names (all of them when `whole`).
   * Returns whether it was remembered (not when the list changed while it ran).
   */
  remember(tools: readonly Tool[], whole: boolean, generation: number): boolean {
    if (generation !== this.changes) return false;
    if (whole) {
      this.tools.clear();
      this.complete = true;
    }
    for (const tool of tools) this.tools.set(tool.name, tool);
    return true;
  }

  /** The server's tool list changed: everything known is stale. */
  forget(): void {
    this.changes++;
    this.tools.clear();
    this.complete = false;
  }

  /** The tool as last listed, if the latest listings named it. */
  known(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /**
   * What is known of `name` without a listing: `{ tool }` (undefined when a whole listing since
   * the last change does not name it), or undefined when only a listing can tell.
   */
  peek(name: string): { tool: Tool | undefined } | undefined {
    const tool = this.tools.get(name);
    return tool !== undefined || this.complete ? { tool } : undefined;
  }

  /**
   * The tool `name`, or undefined when the server has none by that name. Without a whole listing
   * since the last change, the tools are listed first with `list` (which remembers them here).
   */
  async find(name: string, list: () => Promise<readonly Tool[]>): Promise<Tool | undefined> {
    const known = this.peek(name);
    if (known !== undefined) return known.tool;
    this.listing ??= list().finally(() => {
      this.listing = undefined;
    });
    const tools = await this.listing;
    return tools.find((tool) => tool.name === name);
  }
}
