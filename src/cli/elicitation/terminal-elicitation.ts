/**
 * The elicitation handlers of the `mcpwire` command on a terminal: form mode asks each field
 * (form-prompt.ts), URL mode shows the URL and opens the browser on the user's word
 * (url-prompt.ts). One question at a time: a server that asks twice at once gets its second
 * question after the first is answered. Without a terminal the command gives no handler, so it
 * declares no elicitation capability and a server does not ask.
 */
import type { ElicitationHandlers } from "../../client/elicitation.js";
import { TerminalInput } from "./terminal-input.js";
import { askForm } from "./form-prompt.js";
import { askUrl } from "./url-prompt.js";
import type { TerminalStream } from "../progress.js";

export interface TerminalElicitationOptions {
  /** Where the answers are typed. */
  stdin: NodeJS.ReadableStream;
  /** Where the questions are written. */
  stderr: Pick<TerminalStream, "write">;
  /** The server as the user named it, shown with every question. */
  server: string;
  /** Open the browser for a URL (`--no-browser`: only show it). */
  browser: boolean;
  /** Opens the browser on a URL. */
  open: (url: string) => void;
  /** Aborted on Ctrl-C: a question waiting for its answer ends with it. */
  signal: AbortSignal;
  /** Told when a question starts and when it is answered (the progress line keeps quiet meanwhile). */
  onAsking?: (asking: boolean) => void;
}

export interface TerminalElicitation {
  handlers: ElicitationHandlers;
  /** Stops reading the terminal (at the end of the run). */
  close(): void;
}

export function terminalElicitation(options: TerminalElicitationOptions): TerminalElicitation {
  const input = new TerminalInput(options.stdin, options.stderr);
  let turn: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(ask: () => Promise<T>): Promise<T> => {
    const mine = turn.then(async () => {
      options.onAsking?.(true);
      try {
        return await ask();
      } finally {
        options.onAsking?.(false);
      }
    });
    turn = mine.catch(() => {});
    return mine;
  };
  return {
    handlers: {
      form: (request) => oneAtATime(() => askForm(request, input, options.server, AbortSignal.any([request.signal, options.signal]))),
      url: (request) =>
        oneAtATime(() =>
          askUrl(request, input, options.server, AbortSignal.any([request.signal, options.signal]), { browser: options.browser, open: options.open }),
        ),
    },
    close: () => input.close(),
  };
}
