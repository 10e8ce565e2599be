/** A TypeScript fixture server run in a child process over HTTP, reached once it prints "listening <port>". */
import { spawn, type ChildProcess } from "node:child_process";

export interface HttpFixture {
  url: string;
  child: ChildProcess;
}

/** Runs `node --import tsx <script> ...args` and resolves with its `/mcp` URL on 127.0.0.1. */
export function startHttpFixture(script: string, ...args: string[]): Promise<HttpFixture> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    child.once("error", reject);
    child.stdout!.setEncoding("utf8");
    child.stdout!.once("data", (line: string) => {
      const port = /listening (\d+)/.exec(line)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}/mcp`, child });
      else reject(new Error(`unexpected: ${line}`));
    });
  });
}
