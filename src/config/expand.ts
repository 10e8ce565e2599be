/**
 * `${env:NAME}` and `${NAME}` in config strings, as desktop hosts and editors write them, with
 * `${NAME:-fallback}` for a value used when the variable is unset or empty.
 *
 * A variable that is unset and has no fallback is an error that names it: an empty token sent
 * as `Authorization: Bearer ` fails far from its cause.
 */
const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandVariables(text: string, env: Record<string, string | undefined>, where: string): string {
  if (!text.includes("${")) return text;
  return text.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    throw new TypeError(`${where}: the environment variable ${name} is not set (referenced as \${${name}})`);
  });
}

/** Expands every string inside a JSON value; keys are left alone. */
export function expandDeep(value: unknown, env: Record<string, string | undefined>, where: string): unknown {
  if (typeof value === "string") return expandVariables(value, env, where);
  if (Array.isArray(value)) return value.map((item) => expandDeep(item, env, where));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandDeep(item, env, `${where}.${key}`)]));
  }
  return value;
}
