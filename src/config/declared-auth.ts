/**
 * A declaration's `auth` block as a provider, when no code gave one.
 *
 * - A machine flow (`client_credentials`, `workload_identity`, `enterprise_managed`) runs as it
 *   is: it needs no person, so a CI job or a pod gets its tokens itself.
 * - A browser login (`oauth`, the default) uses the tokens `mcpwire login` keeps
 *   (`fileTokenStore()`): code has no browser to open here, so a login the server asks for fails
 *   at once and names the command that does it; stored tokens are used and refreshed. To log in
 *   from code, pass `auth: oauth({ authorize })`.
 */
import { McpTransportError } from "../errors.js";
import { clientCredentials, enterpriseManaged, workloadIdentity } from "../auth/machine-flows.js";
import { oauth } from "../auth/oauth.js";
import { fileTokenStore } from "../auth/token-store.js";
import type { AuthProvider } from "../transport/http/auth-provider.js";
import type { AuthSettings, McpServerConfig, OAuthSettings } from "./server-config.js";

export function declaredAuth(config: McpServerConfig): AuthProvider {
  const settings = config.auth!;
  switch (settings.type) {
    case "client_credentials": {
      const { type: _type, ...options } = settings;
      return clientCredentials(options);
    }
    case "workload_identity": {
      const { type: _type, ...options } = settings;
      return workloadIdentity(options);
    }
    case "enterprise_managed": {
      const { type: _type, ...options } = settings;
      return enterpriseManaged(options);
    }
    default:
      return declaredBrowserLogin(config, settings);
  }
}

/** Whether a declared block is a browser login (the CLI runs those with the browser). */
export function isBrowserLogin(settings: AuthSettings | undefined): settings is OAuthSettings | undefined {
  return settings === undefined || settings.type === undefined || settings.type === "oauth";
}

function declaredBrowserLogin(config: McpServerConfig, settings: OAuthSettings): AuthProvider {
  const needsLogin = (): never => {
    throw new McpTransportError(
      "PROTOCOL",
      `server "${config.name}" asks for a login: run \`mcpwire login ${config.name}\`, or pass auth: oauth({ authorize }) in code`,
      { authStep: "authorization", httpStatus: 401 },
    );
  };
  const { type: _type, ...options } = settings;
  return oauth({ ...options, store: fileTokenStore(), redirectUri: needsLogin, authorize: needsLogin });
}
