// The floor of a whole program that lists a stdio server's tools: newline JSON-RPC on a pipe,
// no library. `node bench/smallest/floor.mjs <command> [args...]`
import { spawn } from "node:child_process";
import { onLines } from "../servers/line-reader.mjs";

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const send = (message) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
onLines(child.stdout, (line) => {
  const message = JSON.parse(line);
  if (message.id === 1) {
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/list", params: {} });
  } else if (message.id === 2) {
    console.log(message.result.tools.map((tool) => tool.name).join("\n"));
    child.stdin.end();
  }
});
send({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "floor", version: "1" } } });
