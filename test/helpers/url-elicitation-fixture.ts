/**
 * test/fixtures/url-elicitation-server.ts on both of its wires, for the test files that run
 * every case over each: stdio (a command line, a new process per client) and Streamable HTTP
 * (one process for the file, a new server per session).
 */
import { afterAll, beforeAll } from "vitest";
import { startHttpFixture, type HttpFixture } from "./http-fixture.js";

const SCRIPT = "test/fixtures/url-elicitation-server.ts";
const STDIO = `${JSON.stringify(process.execPath)} --import tsx ${SCRIPT} stdio`;

/**
 * Starts the HTTP server before the calling file's tests and stops it after them; returns the
 * `[wire name, target]` rows for `describe.each`. Call it at the top level of a test file.
 */
export function useUrlElicitationServer(): Array<[string, () => string]> {
  let http: HttpFixture | undefined;
  beforeAll(async () => {
    http = await startHttpFixture(SCRIPT, "http");
  });
  afterAll(() => {
    http?.child.kill("SIGTERM");
  });
  return [
    ["stdio", () => STDIO],
    ["Streamable HTTP", () => http!.url],
  ];
}

/** The text of a result's first content block, where the fixture's tools put their answer. */
export function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}
