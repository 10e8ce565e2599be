/**
 * The headers the stdio bridge sends to the remote, from a file (`--header-file`, lines
 * `Name: value`) or the environment (`MCPWIRE_BRIDGE_HEADERS`, a JSON object of headers, as
 * `MCPWIRE_SERVER_<NAME>_HEADERS` is for a declared server), never from argv: a process's
 * arguments are visible to every user of the machine (`ps`), a file or the environment is not.
 * The file wins over the variable per header name.
 *
 * A header value is never repeated in a message: a mistake is named by its line or its name.
 */
import { readFile } from "node:fs/promises";
import { UsageError } from "../usage.js";
import { breaksHeaderLine, hasRefusedHeaderChar, isHeaderName } from "../../util/header-syntax.js";

/** The variable of the bridge's headers: a JSON object such as `{"Authorization": "Bearer ..."}`. */
export const BRIDGE_HEADERS_VARIABLE = "MCPWIRE_BRIDGE_HEADERS";


export async function bridgeHeaders(file: string | undefined, env: Record<string, string | undefined>): Promise<Record<string, string>> {
  const headers = headersFromVariable(env[BRIDGE_HEADERS_VARIABLE]);
  if (file !== undefined) Object.assign(headers, await headersFromFile(file));
  return headers;
}

/** `Name: value` per line; blank lines and lines starting with `#` are skipped. */
export async function headersFromFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`--header-file ${JSON.stringify(path)} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "" || line.trimStart().startsWith("#")) return;
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon).trim();
    if (!isHeaderName(name)) throw new UsageError(`--header-file ${JSON.stringify(path)}, line ${index + 1}: not "Name: value"`);
    const value = line.slice(colon + 1).trim();
    // Refused here, at start: the HTTP client would refuse it on every request instead, which the
    // host sees only as a lost connection.
    if (hasRefusedHeaderChar(value)) {
      throw new UsageError(
        `--header-file ${JSON.stringify(path)}, line ${index + 1}: the value of ${name} holds a control character or a character outside Latin-1 (or is not UTF-8); ` +
          `write it in printable ASCII`,
      );
    }
    headers[name] = value;
  });
  return headers;
}

function headersFromVariable(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${BRIDGE_HEADERS_VARIABLE} is not JSON; give an object of headers, {"Name": "value"}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${BRIDGE_HEADERS_VARIABLE} is not a JSON object; give {"Name": "value"}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value as Record<string, unknown>)) {
    if (!isHeaderName(name)) throw new UsageError(`${BRIDGE_HEADERS_VARIABLE}: ${JSON.stringify(name)} is not a header name`);
    if (typeof header !== "string" || breaksHeaderLine(header)) {
      throw new UsageError(`${BRIDGE_HEADERS_VARIABLE}: the value of ${name} must be a string on one line`);
    }
    if (hasRefusedHeaderChar(header)) {
      throw new UsageError(`${BRIDGE_HEADERS_VARIABLE}: the value of ${name} holds a control character or a character outside Latin-1; write it in printable ASCII`);
    }
    headers[name] = header;
  }
  return headers;
}
