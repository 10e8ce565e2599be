/** `mcpwire logout <target>`: forgets what the token store keeps for a server, without reaching it. */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { canonicalResource } from "../../auth/discovery.js";
import { fileTokenStore, tokenFileName } from "../../auth/token-store.js";

/**
 * `directory` is the file token store's folder. That store keeps one file per server and removes
 * it when nothing is left in it, so whether the file is there says whether anything was stored:
 * the line printed says which, rather than claiming to forget what was never kept.
 */
export async function logout(directory: string, serverUrl: string): Promise<string> {
  const resource = canonicalResource(new URL(serverUrl));
  const stored = await access(join(directory, tokenFileName(resource))).then(
    () => true,
    () => false,
  );
  if (!stored) return `no tokens or registrations were stored for ${resource}; nothing to forget`;
  await fileTokenStore(directory).delete({ resource });
  return `forgot the tokens and registrations stored for ${resource}`;
}
