/** A fixture server run as a child (`node --import tsx <file> http`) that prints "listening <port>". */
import { spawn, type ChildProcess } from "node:child_process";

export function startHttpFixture(file: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", file, "http"], { stdio: ["ignore", "pipe", "inherit"] });
    child.once("error", reject);
    child.stdout!.setEncoding("utf8");
    child.stdout!.once("data", (line: string) => {
      const port = /listening (\d+)/.exec(line)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}/mcp`, child });
      else reject(new Error(`unexpected: ${line}`));
    });
  });
}
