/**
 * A declaration's `auth` block as a provider, when no code gave one: `oauth()` with the block's
 * client and scope and the tokens `mcpwire login` keeps (`fileTokenStore()`). Code has no browser
 * to open here, so a login the server asks for fails at once and names the command that does it;
 * stored tokens are used and refreshed. To log in from code, pass `auth: oauth({ authorize })`.
 */
import { McpTransportError } from "../errors.js";
import { oauth } from "../auth/oauth.js";
import { fileTokenStore } from "../auth/token-store.js";
import type { AuthProvider } from "../transport/http/auth-provider.js";
import type { McpServerConfig } from "./server-config.js";

export function declaredOAuth(config: McpServerConfig): AuthProvider {
  const needsLogin = (): never => {
    throw new McpTransportError(
      "PROTOCOL",
      `server "${config.name}" asks for a login: run \`mcpwire login ${config.name}\`, or pass auth: oauth({ authorize }) in code`,
      { authStep: "authorization", httpStatus: 401 },
    );
  };
  return oauth({ ...config.auth, store: fileTokenStore(), redirectUri: needsLogin, authorize: needsLogin });
}
