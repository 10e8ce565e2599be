/**
 * A URL-mode elicitation on the terminal (client/elicitation, "Safe URL Handling"): the server,
 * its message, the full URL and, apart, its domain (with a warning when it is Punycode); the URL
 * is opened only on the user's Enter, in the browser by the platform's opener as a login is
 * (`--no-browser`: the user opens it), never fetched by mcpwire. Then it waits for the user's
 * Enter, or for the server's `notifications/elicitation/complete`, whichever comes first, and
 * answers `accept`. `d` declines, `c` (or the end of input) cancels.
 */
import { domainToUnicode } from "node:url";
import type { UrlElicitationRequest, UrlElicitationResult } from "../../client/elicitation.js";
import { decide, indented, shown } from "./questions.js";
import type { TerminalInput } from "./terminal-input.js";

export interface UrlPromptOptions {
  /** Open the browser (else the user opens the URL). */
  browser: boolean;
  /** Opens the browser on a URL. */
  open: (url: string) => void;
}

export async function askUrl(
  request: UrlElicitationRequest,
  input: TerminalInput,
  server: string,
  signal: AbortSignal,
  options: UrlPromptOptions,
): Promise<UrlElicitationResult> {
  const { url, domain } = request;
  input.say(`\nmcpwire: ${shown(server)} asks you to open a URL in your browser:\n${indented(request.params.message)}`);
  input.say(`  URL:    ${url.href}\n  Domain: ${domain}\n`);
  if (request.punycode) {
    input.say(`  Warning: this domain is written in Punycode; it reads "${shown(domainToUnicode(domain))}", which may imitate another domain.\n`);
  }
  if (request.requiredBy !== undefined) input.say(`  (The server refused ${request.requiredBy} until this is done; it is sent again after.)\n`);
  const prompt = options.browser
    ? "  Enter to open it in your browser, d to decline, c to cancel: "
    : "  Open it in a browser yourself, then press Enter; d to decline, c to cancel: ";
  const consent = await decide(input, prompt, ["go", "decline", "cancel"], signal);
  if (consent === null) return { action: "cancel" };
  if (consent !== "go") return { action: consent };
  if (options.browser) options.open(url.href);
  const done = await finished(request, input, signal);
  return { action: done ? "accept" : "cancel" };
}

/**
 * Waits for the user's Enter or the server's word that the elicitation is complete; false when
 * the input ended first.
 */
async function finished(request: UrlElicitationRequest, input: TerminalInput, signal: AbortSignal): Promise<boolean> {
  const byServer = request.params.elicitationId === undefined ? "" : ", or for the server to say so";
  input.say(`  Waiting for you to finish in the browser${byServer}.\n`);
  const stop = new AbortController();
  const enter = input.ask("  Press Enter when you are done: ", AbortSignal.any([signal, stop.signal]));
  const completed = request.completed.then(
    () => true,
    () => false, // the signal aborted: `enter` rejects with its reason too
  );
  try {
    const first = await Promise.race([enter.then((line) => ({ line })), completed.then((said) => ({ said }))]);
    if ("said" in first && first.said) {
      input.say("\n  The server says it is done.\n");
      return true;
    }
    if ("said" in first) return (await enter) !== null;
    return first.line !== null;
  } finally {
    stop.abort();
    enter.catch(() => {});
  }
}
