/**
 * Opens a URL in the user's browser with the platform's opener, from an argv and never a shell
 * (a URL's `&` would end a shell command): `open` on macOS, `xdg-open` elsewhere on Unix, and
 * `rundll32 url.dll,FileProtocolHandler` on Windows, which takes the URL as one argument where
 * `cmd /c start` would parse it. The opener runs detached; whether it worked is not awaited, as
 * the URL is always printed too.
 */
import { spawn } from "node:child_process";

export function openerArgv(url: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === "darwin") return ["open", [url]];
  if (platform === "win32") return ["rundll32", ["url.dll,FileProtocolHandler", url]];
  return ["xdg-open", [url]];
}

export function openBrowser(url: string): void {
  const [command, args] = openerArgv(url);
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true, shell: false });
    child.on("error", () => {
      // No opener on this machine: the printed URL is the way.
    });
    child.unref();
  } catch {
    // As above.
  }
}
