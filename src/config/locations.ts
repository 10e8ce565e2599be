/**
 * Where mcpwire looks for an `mcpServers` file when none is named, first match wins:
 *
 * 1. the file named by the environment variable `MCPWIRE_CONFIG`;
 * 2. in the working directory: `mcp.json`, `.mcp.json` (Claude Code), `.vscode/mcp.json` (VS Code),
 *    `.cursor/mcp.json` (Cursor);
 * 3. in the home directory: `.cursor/mcp.json`, then the desktop host's
 *    `claude_desktop_config.json` (macOS: `~/Library/Application Support/Claude/`, Windows:
 *    `%APPDATA%\Claude\`, Linux: `~/.config/Claude/`).
 */
import { homedir } from "node:os";
import { join } from "node:path";

export interface LocationContext {
  cwd?: string;
  home?: string;
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
}

export function configFileCandidates(context: LocationContext = {}): string[] {
  const env = context.env ?? process.env;
  const cwd = context.cwd ?? process.cwd();
  const home = context.home ?? homedir();
  const platform = context.platform ?? process.platform;
  const candidates: string[] = [];
  if (env.MCPWIRE_CONFIG) candidates.push(env.MCPWIRE_CONFIG);
  candidates.push(
    join(cwd, "mcp.json"),
    join(cwd, ".mcp.json"),
    join(cwd, ".vscode", "mcp.json"),
    join(cwd, ".cursor", "mcp.json"),
    join(home, ".cursor", "mcp.json"),
  );
  if (platform === "darwin") candidates.push(join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"));
  else if (platform === "win32") candidates.push(join(env.APPDATA ?? join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json"));
  else candidates.push(join(env.XDG_CONFIG_HOME ?? join(home, ".config"), "Claude", "claude_desktop_config.json"));
  return candidates;
}
