/** `mcpwire logout <target>`: forgets what the token store keeps for a server, without reaching it. */
import { canonicalResource } from "../../auth/discovery.js";
import type { TokenStore } from "../../auth/token-store.js";

export async function logout(store: TokenStore, serverUrl: string): Promise<string> {
  const resource = canonicalResource(new URL(serverUrl));
  await store.delete({ resource });
  return `forgot the tokens and registrations stored for ${resource}`;
}
