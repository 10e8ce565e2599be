/**
 * `${env:NAME}` and `${NAME}` in config strings, as desktop hosts and editors write them, with
 * `${NAME:-fallback}` for a value used when the variable is unset or empty.
 *
 * A variable that is unset and has no fallback is an error that names it: an empty token sent
 * as `Authorization: Bearer ` fails far from its cause.
 *
 * The names a reference carries: a letter or `_`, then letters, digits, `_` and parentheses, so
 * Windows' own `ProgramFiles(x86)` and `CommonProgramFiles(x86)` (which `isEnvVarName` accepts in
 * `env`/`envAllow`) can be referenced; a `}` ends the reference and `:` starts `:-`, and neither
 * is part of such a name, so the reading is unambiguous. Other text in `${...}` is left as it is,
 * as before: a string may hold shell that the child's shell expands (`${HOME%/*}`, `${#VAR}`),
 * and that text must reach it unchanged rather than fail as an unset variable.
 */
const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_()]*)(?::-([^}]*))?\}/g;

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
