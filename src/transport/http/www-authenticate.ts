/**
 * The `WWW-Authenticate` header parsed as RFC 9110 §11.6.1 defines it:
 *
 *   WWW-Authenticate = #challenge
 *   challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param       = token BWS "=" BWS ( token / quoted-string )
 *
 * Several challenges may share one header (and several headers are joined with ", "), so a comma
 * ends either a parameter or a challenge: what follows it decides (`name=` is a parameter, a bare
 * token is the next scheme). Schemes and parameter names are case-insensitive and kept in lower
 * case; values are kept as sent, quoted-strings unescaped, bare ones up to the next comma or
 * space. A malformed tail ends the parse with what was read before it, rather than failing a
 * request that may not need it.
 */

export interface AuthChallenge {
  /** The scheme, in lower case (`bearer`, `dpop`, `basic`). */
  scheme: string;
  /** Its parameters by lower-case name; the first of a repeated name wins. */
  params: Record<string, string>;
  /** The token68 form, for schemes that use it instead of parameters. */
  token68?: string;
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

export function parseWwwAuthenticate(header: string | undefined): AuthChallenge[] {
  if (header === undefined) return [];
  const challenges: AuthChallenge[] = [];
  let at = 0;
  const length = header.length;

  const skip = (chars: string): void => {
    while (at < length && chars.includes(header[at]!)) at++;
  };
  const readToken = (): string => {
    const start = at;
    while (at < length && TOKEN_CHAR.test(header[at]!)) at++;
    return header.slice(start, at);
  };
  // After optional spaces, is the next thing `token BWS "=" BWS` followed by a value (a parameter)?
  const paramAhead = (): boolean => {
    let look = at;
    while (look < length && (header[look] === " " || header[look] === "\t")) look++;
    const start = look;
    while (look < length && TOKEN_CHAR.test(header[look]!)) look++;
    if (look === start) return false;
    while (look < length && (header[look] === " " || header[look] === "\t")) look++;
    if (header[look] !== "=") return false;
    look++;
    while (look < length && (header[look] === " " || header[look] === "\t")) look++;
    // `name==` or `name=` at the end is a token68 with padding, not a parameter.
    return look < length && header[look] !== "=" && header[look] !== ",";
  };
  const readValue = (): string | undefined => {
    if (header[at] !== '"') {
      // A bare value is a token by the grammar; servers send scopes such as `files:write` bare
      // too, so it runs to the next comma or space.
      const start = at;
      while (at < length && header[at] !== "," && header[at] !== " " && header[at] !== "\t") at++;
      return header.slice(start, at);
    }
    at++;
    let value = "";
    while (at < length) {
      const char = header[at]!;
      if (char === "\\" && at + 1 < length) {
        value += header[at + 1];
        at += 2;
      } else if (char === '"') {
        at++;
        return value;
      } else {
        value += char;
        at++;
      }
    }
    return undefined; // unterminated
  };

  while (at < length) {
    skip(" \t,");
    const scheme = readToken();
    if (scheme === "") break;
    const challenge: AuthChallenge = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(challenge);
    skip(" \t");
    if (at < length && header[at] !== "," && !paramAhead()) {
      // token68
      const start = at;
      while (at < length && TOKEN68_CHAR.test(header[at]!)) at++;
      while (at < length && header[at] === "=") at++;
      if (at > start) challenge.token68 = header.slice(start, at);
      skip(" \t");
      if (at < length && header[at] !== ",") return challenges;
      continue;
    }
    // Parameters, separated by commas, until a comma is followed by a bare token (the next scheme).
    for (;;) {
      if (!paramAhead()) break;
      skip(" \t");
      const name = readToken().toLowerCase();
      skip(" \t");
      at++; // "="
      skip(" \t");
      const value = readValue();
      if (value === undefined) return challenges;
      if (!(name in challenge.params)) challenge.params[name] = value;
      skip(" \t");
      if (at >= length) break;
      if (header[at] !== ",") return challenges;
      const comma = at;
      skip(" \t,");
      if (!paramAhead()) {
        at = comma;
        break;
      }
    }
  }
  return challenges;
}

/** The first challenge of a scheme (case-insensitive), if any. */
export function challengeOf(challenges: readonly AuthChallenge[], scheme: string): AuthChallenge | undefined {
  const wanted = scheme.toLowerCase();
  return challenges.find((challenge) => challenge.scheme === wanted);
}
