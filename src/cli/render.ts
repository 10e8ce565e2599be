/**
 * Human output: aligned tables, tool results rendered readably, binary content summarized.
 * Pure functions from data to text, so that every rule here is tested without a terminal.
 *
 * Text a server chose (names, descriptions, tool output) passes `forTerminal` first when it goes
 * to a terminal: escape sequences in it could otherwise move the cursor, retitle the window or
 * hide lines.
 */
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Tool,
} from "../protocol/schemas.js";
import type { TaskState } from "../client/tasks/task-state.js";
import type { Progress } from "../session/session.js";

export interface RenderContext {
  /**
   * The width to fit tables in; `Infinity` when the output has none (a pipe or a file, and no
   * `$COLUMNS`): then nothing is cut, since a script reading the table needs every character.
   */
  columns: number;
  /** Whether the text goes to a terminal (then server text is cleaned of control characters). */
  terminal: boolean;
}

/** The width assumed for a terminal that does not say its size. */
export const DEFAULT_COLUMNS = 80;

/** The narrowest the last column of a table is cut to, however wide the others are. */
const MIN_LAST_COLUMN = 16;

/** The room the last column (a description) is given, if need be by narrowing the middle columns. */
const PREFERRED_LAST_COLUMN = 36;

/** The widest a middle column (arguments, MIME type) grows before it is cut. */
const MAX_MIDDLE_COLUMN = 40;

/** The narrowest a middle column is cut to, to make room for the last. */
const MIN_MIDDLE_COLUMN = 12;

/** Spaces between columns. */
const COLUMN_GAP = 2;

const ELLIPSIS = "…";

// --- Text helpers

/** Removes control characters other than newline and tab (and so every escape sequence's ESC). */
export function forTerminal(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, "");
}

/** One line: runs of whitespace (newlines included) become one space; control characters go. */
export function oneLine(text: string): string {
  return forTerminal(text.replace(/\s+/g, " ")).trim();
}

/** Cut to `width` characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, Math.max(0, width)).join("");
  return chars.slice(0, width - 1).join("") + ELLIPSIS;
}

function displayWidth(text: string): number {
  return [...text].length;
}

function padEnd(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

/** `512 B`, `12.3 KiB`, `4.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** The number of bytes base64 text decodes to (without decoding it). */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

// --- Tables

/**
 * Columns aligned by their widest cell; middle columns are cut at a maximum width and the last
 * column is cut to what is left of `columns`. Cells are made one line first. With `columns`
 * Infinity (no width to fit) no cell is cut.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], columns: number): string {
  const cells = rows.map((row) => headers.map((_, index) => oneLine(row[index] ?? "")));
  const last = headers.length - 1;
  const widest = headers.map((header, index) => Math.max(displayWidth(header), ...cells.map((row) => displayWidth(row[index]!))));
  const fitting = Number.isFinite(columns);
  const widths = widest.map((width, index) => (fitting && index > 0 && index < last ? Math.min(width, MAX_MIDDLE_COLUMN) : width));
  const before = () => widths.slice(0, last).reduce((sum, width) => sum + width + COLUMN_GAP, 0);
  // The first column (the name to type) is never cut; middle columns give way to the description.
  const wanted = Math.min(widest[last]!, PREFERRED_LAST_COLUMN);
  while (before() + wanted > columns) {
    let narrowest = -1;
    for (let index = 1; index < last; index++) {
      if (widths[index]! > MIN_MIDDLE_COLUMN && (narrowest < 0 || widths[index]! > widths[narrowest]!)) narrowest = index;
    }
    if (narrowest < 0) break;
    widths[narrowest]!--;
  }
  const lastWidth = Math.max(MIN_LAST_COLUMN, columns - before());
  const line = (row: readonly string[]) =>
    row
      .map((cell, index) => (index === last ? truncate(cell, lastWidth) : padEnd(truncate(cell, widths[index]!), widths[index]!)))
      .join(" ".repeat(COLUMN_GAP))
      .trimEnd();
  return [line(headers), ...cells.map(line)].join("\n") + "\n";
}

/** `Label  value` lines, labels aligned. */
export function keyValues(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([key]) => displayWidth(key)));
  return pairs.map(([key, value]) => `${padEnd(key, width)}  ${value}`.trimEnd()).join("\n") + "\n";
}

// --- Listings

/** `text: string, ms?: number`: a tool's arguments from its input schema, optional ones marked `?`. */
export function toolArguments(tool: Tool): string {
  const schema = tool.inputSchema as { properties?: unknown; required?: unknown };
  const properties = typeof schema.properties === "object" && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  return Object.entries(properties)
    .map(([name, schema]) => {
      const type = typeof schema === "object" && schema !== null ? typeName((schema as { type?: unknown }).type) : "";
      return `${name}${required.has(name) ? "" : "?"}${type ? `: ${type}` : ""}`;
    })
    .join(", ");
}

function typeName(type: unknown): string {
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.filter((t) => typeof t === "string").join("|");
  return "";
}

export function renderTools(tools: readonly Tool[], context: RenderContext): string {
  if (tools.length === 0) return "No tools.\n";
  return table(
    ["NAME", "ARGUMENTS", "DESCRIPTION"],
    tools.map((tool) => [tool.name, toolArguments(tool), tool.description ?? tool.title ?? ""]),
    context.columns,
  );
}

export function renderResources(resources: readonly Resource[], templates: readonly ResourceTemplate[], context: RenderContext): string {
  const parts: string[] = [];
  if (resources.length === 0 && templates.length === 0) return "No resources.\n";
  if (resources.length > 0) {
    parts.push(
      table(
        ["URI", "NAME", "MIME TYPE", "DESCRIPTION"],
        resources.map((r) => [r.uri, r.name, r.mimeType ?? "", r.description ?? r.title ?? ""]),
        context.columns,
      ),
    );
  }
  if (templates.length > 0) {
    parts.push(
      table(
        ["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
        templates.map((t) => [t.uriTemplate, t.name, t.mimeType ?? "", t.description ?? t.title ?? ""]),
        context.columns,
      ),
    );
  }
  return parts.join("\n");
}

export function renderPrompts(prompts: readonly Prompt[], context: RenderContext): string {
  if (prompts.length === 0) return "No prompts.\n";
  return table(
    ["NAME", "ARGUMENTS", "DESCRIPTION"],
    prompts.map((prompt) => [
      prompt.name,
      (prompt.arguments ?? []).map((argument) => `${argument.name}${argument.required ? "" : "?"}`).join(", "),
      prompt.description ?? prompt.title ?? "",
    ]),
    context.columns,
  );
}

// --- Content

/** One content block: text as it is, everything else summarized on one line. */
export function renderContentBlock(block: ContentBlock, context: RenderContext): string {
  switch (block.type) {
    case "text":
      return context.terminal ? forTerminal(block.text) : block.text;
    case "image":
    case "audio":
      return `[${block.type} ${oneLine(block.mimeType)}, ${formatBytes(base64Bytes(block.data))}]`;
    case "resource_link":
      return `[resource link ${oneLine(block.uri)}${block.mimeType ? `, ${oneLine(block.mimeType)}` : ""}${block.size !== undefined ? `, ${formatBytes(block.size)}` : ""}]`;
    case "resource":
      return `[resource ${summarizeContents(block.resource)}]`;
    default:
      return `[${oneLine(String((block as { type?: unknown }).type))} content]`;
  }
}

/** `file:///a.txt, text/plain, 1.2 KiB`. */
function summarizeContents(contents: ResourceContents): string {
  const text = textOf(contents);
  const size = text !== undefined ? Buffer.byteLength(text, "utf8") : base64Bytes(String(contents.blob ?? ""));
  return `${oneLine(contents.uri)}${contents.mimeType ? `, ${oneLine(contents.mimeType)}` : ""}, ${formatBytes(size)}`;
}

/**
 * A tool's result: its content blocks in order, then `structuredContent` as indented JSON. The
 * text block that only repeats the structured content as JSON (as the spec asks servers to send
 * for older clients) is not printed twice.
 */
export function renderToolResult(result: CallToolResult, context: RenderContext): string {
  const structured = result.structuredContent;
  const blocks = structured === undefined ? result.content : result.content.filter((block) => !repeatsAsJson(block, structured));
  const parts = blocks.map((block) => renderContentBlock(block, context));
  if (structured !== undefined) parts.push(prettyJson(structured, context));
  return joinBlocks(parts);
}

function repeatsAsJson(block: ContentBlock, value: unknown): boolean {
  if (block.type !== "text") return false;
  try {
    return sameJson(JSON.parse(block.text), value);
  } catch {
    return false;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function prettyJson(value: unknown, context: RenderContext): string {
  const text = JSON.stringify(value, null, 2);
  return context.terminal ? forTerminal(text) : text;
}

/** What `read` shows: text contents as they are, binary contents summarized. */
export function renderResourceContents(result: ReadResourceResult, context: RenderContext): string {
  if (result.contents.length === 0) return "(no contents)\n";
  const parts = result.contents.map((contents) => {
    const text = textOf(contents);
    if (text === undefined) return `[blob ${summarizeContents(contents)}]`;
    return context.terminal ? forTerminal(text) : text;
  });
  return joinBlocks(parts);
}

/** The text of text contents; undefined for blob contents. */
function textOf(contents: ResourceContents): string | undefined {
  return typeof contents.text === "string" ? contents.text : undefined;
}

/** What `prompt` shows: the description, then each message under its role. */
export function renderPrompt(result: GetPromptResult, context: RenderContext): string {
  const parts: string[] = [];
  if (result.description) parts.push(`# ${oneLine(result.description)}`);
  for (const message of result.messages) {
    parts.push(`[${message.role}]\n${trimEndNewline(renderContentBlock(message.content, context))}`);
  }
  return joinBlocks(parts);
}

/** Blocks one after another, each ending with exactly one newline. */
function joinBlocks(parts: readonly string[]): string {
  return parts.map((part) => `${trimEndNewline(part)}\n`).join("");
}

function trimEndNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

// --- Progress

/** The width of the bar in a progress line with a known total. */
const PROGRESS_BAR_WIDTH = 20;

/**
 * One progress line for stderr: `[########------------] 4/10 40% message` when the total is
 * known, `progress 4 message` otherwise; cut to fit the terminal.
 */
export function progressLine(progress: Progress, columns: number): string {
  const message = progress.message ? ` ${oneLine(progress.message)}` : "";
  let text: string;
  if (progress.total !== undefined && progress.total > 0) {
    const ratio = Math.min(1, Math.max(0, progress.progress / progress.total));
    const filled = Math.round(ratio * PROGRESS_BAR_WIDTH);
    const bar = "#".repeat(filled) + "-".repeat(PROGRESS_BAR_WIDTH - filled);
    text = `[${bar}] ${formatNumber(progress.progress)}/${formatNumber(progress.total)} ${Math.round(ratio * 100)}%${message}`;
  } else {
    text = `progress ${formatNumber(progress.progress)}${message}`;
  }
  // One column short of the edge, so the terminal never wraps the line.
  return truncate(text, Math.max(1, columns - 1));
}

/**
 * The progress line of a call that runs as a task: `task working: Gathering sources...`, the
 * status as the server last said, with its message; cut to fit the terminal.
 */
export function taskStatusLine(state: TaskState, columns: number): string {
  const message = state.statusMessage ? `: ${oneLine(state.statusMessage)}` : "";
  return truncate(`task ${state.status.replace("_", " ")}${message}`, Math.max(1, columns - 1));
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
}
