/**
 * The OAuth of a `mcpwire` run against a server reached by URL: `oauth()` with tokens kept in
 * `fileTokenStore()` (under `$XDG_CONFIG_HOME/mcpwire/auth`, `%APPDATA%` on Windows), and the
 * browser as its user agent:
 *
 * - on a terminal (or for `mcpwire login`), a login the server asks for opens the browser on the
 *   authorization URL (printed to stderr too; `--no-browser` only prints it) and waits for it
 *   to come back to a listener on 127.0.0.1, at most five minutes;
 * - without a terminal, it fails at once and names `mcpwire login <target>`, before any client
 *   is registered: stored tokens are still used and refreshed.
 */
import { McpTransportError } from "../../errors.js";
import { oauth } from "../../auth/oauth.js";
import type { TokenStore } from "../../auth/token-store.js";
import type { OAuthSettings } from "../../config/server-config.js";
import type { AuthProvider } from "../../transport/http/auth-provider.js";
import type { TerminalStream } from "../progress.js";
import { CALLBACK_PATH, LoginCallback } from "./login-callback.js";
import { openBrowser } from "./open-browser.js";

export interface CliOAuthOptions {
  /** Where the URL is printed. */
  stderr: Pick<TerminalStream, "write">;
  /** A person can take part: the browser flow may run. */
  interactive: boolean;
  /** Open the browser (else only print the URL). */
  browser: boolean;
  store: TokenStore;
  /** The target as the user wrote it, for the hint to log in. */
  target: string;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Opens the browser; the platform's opener unless a test gives its own. */
  opener?: (url: string) => void;
  /** The declaration's `auth` block: a pre-registered client, the scope. */
  settings?: OAuthSettings;
}

export interface CliOAuth {
  provider: AuthProvider;
  /** How many logins ran in the browser during this run. */
  readonly logins: number;
  /** Stops a listener still waiting (a run that failed before its login came back). */
  close(): Promise<void>;
}

export function cliOAuth(options: CliOAuthOptions): CliOAuth {
  let listener: LoginCallback | undefined;
  let logins = 0;
  const needsLogin = () =>
    new McpTransportError(
      "PROTOCOL",
      `the server asks for a login, which needs a browser and a terminal: run \`mcpwire login ${options.target}\` first`,
      { authStep: "authorization", httpStatus: 401 },
    );
  const { type: _type, ...settings } = options.settings ?? {};
  const provider = oauth({
    ...settings,
    store: options.store,
    clientName: settings.clientName ?? "mcpwire",
    redirectUri: async (registered) => {
      if (!options.interactive) throw needsLogin();
      await listener?.close();
      listener = await LoginCallback.listen(registeredPort(registered));
      return listener.redirectUri;
    },
    authorize: async (authorizationUrl, { signal }) => {
      if (!options.interactive || listener === undefined) throw needsLogin();
      const url = authorizationUrl.href;
      options.stderr.write(`mcpwire: the server asks for a login; open this URL in a browser:\n  ${url}\n`);
      if (options.browser) (options.opener ?? openBrowser)(url);
      const stop = AbortSignal.any([signal, options.signal]);
      const callback = await listener.wait(stop);
      listener = undefined;
      logins++;
      return callback;
    },
  });
  return {
    provider,
    get logins() {
      return logins;
    },
    close: async () => {
      await listener?.close();
      listener = undefined;
    },
  };
}

/** The port of a stored registration's loopback redirect URI, so that it still matches. */
function registeredPort(registered: readonly string[] | undefined): number | undefined {
  for (const uri of registered ?? []) {
    try {
      const url = new URL(uri);
      if (url.hostname === "127.0.0.1" && url.pathname === CALLBACK_PATH && url.port !== "") return Number(url.port);
    } catch {
      // Not ours.
    }
  }
  return undefined;
}
