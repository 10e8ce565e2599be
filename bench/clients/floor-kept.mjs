// The stdio floor with what the brief asks every call to keep, written as plainly as the floor
// itself: the four ceilings (largest message each way, read stall, requests in flight, end to
// end), a reply checked to be JSON-RPC before it settles anything, and a run that fails closed.
// Nothing else of a client: no eras, no progress, no cancellation message, no schema, no
// reconnects, no handlers of the server's requests. It answers one question: how far above the
// bare floor does the least a client must do already put a call, in the windows?
// Run by `npm run bench:layers` (bench/layers.mjs), not by the main bench (it has no HTTP side):
// bench/RESULTS.md, "Layer by layer, beside a floor that keeps the ceilings".
import { spawn } from "node:child_process";
import { handshake } from "./floor.mjs";

const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const READ_TIMEOUT_MS = 60_000;
const TIMEOUT_MS = 120_000;
const MAX_IN_FLIGHT = 64;

export async function load() {
  return {
    connect: (target) => {
      if (!target.command) throw new Error("floor-kept is a stdio client only");
      return stdio(target);
    },
  };
}

function stdio({ command, args }) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  const waiting = [];
  let nextId = 1;
  let ended;

  const failAll = (error) => {
    ended ??= error;
    for (const entry of pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
    pending.clear();
    for (const start of waiting.splice(0)) start(error);
  };

  // The read stall: one timer for the connection, counting while an answer is awaited.
  // (refresh() re-arms it after it has fired idle.)
  const stall = setTimeout(() => {
    if (pending.size > 0) failAll(new Error("read stall"));
  }, READ_TIMEOUT_MS);
  stall.unref();

  // The floor's line reader (servers/line-reader.mjs), with the ceiling checked as lines come in;
  // a copy rather than an option of it, so that the floor's own loop stays as it was measured.
  // The ceiling is counted in UTF-16 units of the decoded text, as plain code would, not in bytes.
  let parts = [];
  let partBytes = 0;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    if (pending.size > 0) stall.refresh();
    let start = 0;
    let newline;
    while ((newline = chunk.indexOf("\n", start)) >= 0) {
      parts.push(chunk.slice(start, newline));
      const line = parts.length === 1 ? parts[0] : parts.join("");
      parts = [];
      partBytes = 0;
      start = newline + 1;
      if (line.length > MAX_MESSAGE_BYTES) return failAll(new Error("message too large"));
      if (line.trim() !== "") onLine(line);
    }
    if (start < chunk.length) {
      parts.push(chunk.slice(start));
      partBytes += chunk.length - start;
      if (partBytes > MAX_MESSAGE_BYTES) failAll(new Error("message too large"));
    }
  });
  child.on("exit", () => failAll(new Error("disconnected")));

  function onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return failAll(new Error("not JSON"));
    }
    // Fails closed: only a well-formed answer to a request of ours settles it.
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0" || typeof message.id !== "number") return;
    const entry = pending.get(message.id);
    if (!entry) return;
    const isResult = typeof message.result === "object" && message.result !== null;
    const isError = typeof message.error === "object" && message.error !== null && Number.isInteger(message.error.code);
    if (isResult === isError) return failAll(new Error("not a JSON-RPC response"));
    settle(message.id, entry);
    entry.resolve(message);
  }

  // A request leaves the line in flight (answered or timed out), and the next waiting one takes its slot.
  function settle(id, entry) {
    pending.delete(id);
    clearTimeout(entry.timer);
    const next = waiting.shift();
    if (next) next();
  }

  const send = (message) => {
    const line = JSON.stringify(message) + "\n";
    if (line.length > MAX_MESSAGE_BYTES) throw new Error("message too large");
    child.stdin.write(line);
  };

  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const start = (error) => {
        if (error) return reject(error);
        const id = nextId++;
        // A tool's result is checked as mcpwire checks it: content is a list of typed blocks.
        const entry = { resolve: method === "tools/call" ? (reply) => checkedCall(reply, resolve, reject) : resolve, reject, timer: undefined };
        entry.timer = setTimeout(() => {
          settle(id, entry);
          reject(new Error("timeout"));
        }, TIMEOUT_MS);
        pending.set(id, entry);
        if (pending.size === 1) stall.refresh();
        send({ jsonrpc: "2.0", id, method, params });
      };
      if (ended) reject(ended);
      else if (pending.size < MAX_IN_FLIGHT) start();
      else waiting.push(start);
    });

  return handshake(request, send, async () => {
    clearTimeout(stall);
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
  });
}

function checkedCall(reply, resolve, reject) {
  const content = reply.result?.content;
  if (reply.result && !(Array.isArray(content) && content.every((block) => typeof block?.type === "string"))) {
    reject(new Error("a tool result without its content"));
  } else {
    resolve(reply);
  }
}
