/**
 * Who a request comes from: the bearer token of `tokenFile` (compared in constant time), the
 * `authorize(request)` hook, or nobody asked (every caller is "anonymous"). A caller that does not
 * pass gets 401 with `WWW-Authenticate: Bearer`. The `Authorization` header is read here and
 * nowhere else: it never reaches a child (children get messages, never headers) or a log line.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { Principal } from "../gateway-options.js";

/** The principal of every caller when the gateway asks for no credential. */
export const ANONYMOUS: Principal = Object.freeze({ principal: "anonymous" });
/** The principal of a caller that presented the token of `tokenFile`. */
export const TOKEN_PRINCIPAL: Principal = Object.freeze({ principal: "token" });

export type CallerCheck = (request: IncomingMessage) => Promise<Principal | undefined>;

export interface CallerAuthOptions {
  tokenFile?: string;
  authorize?: (request: IncomingMessage) => Principal | undefined | Promise<Principal | undefined>;
}

/**
 * The check for each request. The token file is read once, here, so a missing or empty file stops
 * the gateway from starting rather than refusing every caller later.
 */
export function callerCheck(options: CallerAuthOptions): CallerCheck {
  if (options.tokenFile !== undefined) {
    const expected = digest(readToken(options.tokenFile));
    return async (request) => {
      const presented = bearerOf(request);
      // Digests of equal length make the comparison's time independent of the token's length
      // and of where the first difference is.
      return presented !== undefined && timingSafeEqual(digest(presented), expected) ? TOKEN_PRINCIPAL : undefined;
    };
  }
  const authorize = options.authorize;
  if (authorize !== undefined) {
    return async (request) => {
      const answer = await authorize(request);
      if (answer === undefined) return undefined;
      if (typeof answer !== "object" || answer === null || typeof answer.principal !== "string" || answer.principal === "") {
        throw new TypeError('authorize: the answer must be { principal: "<name>", env? } or undefined');
      }
      return answer;
    };
  }
  return async () => ANONYMOUS;
}

function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new TypeError(`createGateway: "tokenFile" ${JSON.stringify(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); give a file holding the bearer token`, { cause: error });
  }
  const token = text.trim();
  if (token === "" || /\s/.test(token)) {
    throw new TypeError(`createGateway: "tokenFile" ${JSON.stringify(file)} must hold one token on one line, without spaces`);
  }
  return token;
}

function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
