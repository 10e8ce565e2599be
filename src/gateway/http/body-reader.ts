/**
 * The body of a POST, read within `maxBodyBytes`: a `Content-Length` past the ceiling is refused
 * before a byte is read, and a body without one is counted as it arrives and left unread past
 * the ceiling. Either way the caller gets 413 before anything is parsed, and the connection is
 * closed after it, so the rest is never read.
 */
import type { IncomingMessage } from "node:http";

export type BodyResult =
  | { kind: "body"; text: string }
  | { kind: "too_large" }
  /** The caller went away, or the body broke off, before it ended. */
  | { kind: "aborted" };

/** Whether the request declares a body past `maxBytes` (its `Content-Length`): refused before a byte of it is read. */
export function declaredTooLarge(request: IncomingMessage, maxBytes: number): boolean {
  const declared = request.headers["content-length"];
  return declared !== undefined && Number(declared) > maxBytes;
}

export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  if (declaredTooLarge(request, maxBytes)) return Promise.resolve({ kind: "too_large" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (result: BodyResult): void => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onAborted);
      request.off("close", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        // Stop reading here: what is held is dropped, and the rest stays in the socket, which the
        // handler closes once the 413 is written.
        request.pause();
        chunks.length = 0;
        finish({ kind: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ kind: "body", text: Buffer.concat(chunks, bytes).toString("utf8") });
    const onAborted = (): void => finish({ kind: "aborted" });
    const onClose = (): void => {
      if (!request.complete) finish({ kind: "aborted" });
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onAborted);
    request.on("close", onClose);
  });
}
