/**
 * The environment of a child process: only the variables named in an allow-list, plus the ones
 * given explicitly.
 *
 * A child that inherits this process's environment inherits its credentials (cloud keys,
 * tokens, database URLs), and a server started with `npx` is exactly the code that should not
 * have them. So nothing is inherited unless named.
 */

/**
 * What a POSIX process needs to find programs and its home, and nothing else.
 * Note what is absent: LANG, TMPDIR and the like are named in `envAllow` when a server needs them.
 */
export const DEFAULT_ENV_ALLOW_POSIX: readonly string[] = Object.freeze(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]);

/**
 * What a Windows process needs to start at all (SYSTEMROOT, COMSPEC, PATHEXT: without them
 * `cmd.exe` shims such as `npx.cmd` fail in odd ways), to find its profile and temporary files.
 */
export const DEFAULT_ENV_ALLOW_WINDOWS: readonly string[] = Object.freeze([
  "APPDATA",
  "COMSPEC",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
  "WINDIR",
]);

/** The default allow-list of the platform this process runs on. */
export function defaultEnvAllow(platform: NodeJS.Platform = process.platform): readonly string[] {
  return platform === "win32" ? DEFAULT_ENV_ALLOW_WINDOWS : DEFAULT_ENV_ALLOW_POSIX;
}

export interface ChildEnvOptions {
  /** Names of the parent's variables the child may inherit. @default defaultEnvAllow(platform) */
  allow?: readonly string[];
  /** Variables set for the child, over the inherited ones; `undefined` removes one. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The environment to inherit from. @default process.env */
  parent?: Readonly<Record<string, string | undefined>>;
  /** Windows names are case-insensitive ("Path" is PATH). @default process.platform */
  platform?: NodeJS.Platform;
}

/** The child's environment: the allowed part of the parent's, then the explicit variables. */
export function childEnv(options: ChildEnvOptions = {}): Record<string, string> {
  const platform = options.platform ?? process.platform;
  const allow = options.allow ?? defaultEnvAllow(platform);
  const parent = options.parent ?? process.env;
  const ignoreCase = platform === "win32";
  const key = (name: string) => (ignoreCase ? name.toUpperCase() : name);

  const allowed = new Set(allow.map(key));
  const env: Record<string, string> = {};
  const nameOf = new Map<string, string>();
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || !allowed.has(key(name))) continue;
    // A value starting with "()" is a shell function exported by bash; a child shell would
    // evaluate it, so it is never passed on implicitly (it can still be given in `env`).
    if (value.startsWith("()")) continue;
    env[name] = value;
    nameOf.set(key(name), name);
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    // On Windows, "Path" given explicitly replaces the inherited "PATH" rather than doubling it.
    const existing = nameOf.get(key(name));
    if (existing !== undefined) delete env[existing];
    if (value === undefined) {
      nameOf.delete(key(name));
      continue;
    }
    env[name] = value;
    nameOf.set(key(name), name);
  }
  return env;
}

/**
 * What an environment variable's name may be, in words for error messages: the rule of
 * `isEnvVarName`.
 */
export const ENV_VAR_NAME_RULE = 'non-empty, without "=" or NUL';

/**
 * Whether `name` can name an environment variable. Neither platform asks more than this of a
 * name: an entry is `NAME=value` ended by NUL, so "=" and NUL cannot be in one, and anything else
 * can. Windows has names a shell identifier rule would refuse (`ProgramFiles(x86)`,
 * `CommonProgramFiles(x86)`), and a user who allow-lists one means it. The one place for this
 * rule: the transport's checks, the config file's and the CLI's all call it.
 */
export function isEnvVarName(name: unknown): name is string {
  return typeof name === "string" && name !== "" && !name.includes("=") && !name.includes("\0");
}

/** Checks `envAllow` as given by a user; says which entry is wrong and why. */
export function checkEnvAllow(value: unknown, where: string): readonly string[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`${where}: "envAllow" must be an array of variable names, got ${typeof value}`);
  }
  value.forEach((name: unknown, index) => {
    if (!isEnvVarName(name)) {
      throw new TypeError(
        `${where}: "envAllow[${index}]" must be a variable name (${ENV_VAR_NAME_RULE}), got ${JSON.stringify(name)}`,
      );
    }
  });
  return value as string[];
}

/** Checks `env` as given by a user: string values (or undefined to remove a variable). */
export function checkEnv(value: unknown, where: string): Record<string, string | undefined> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${where}: "env" must be an object of variable names to string values`);
  }
  for (const [name, entry] of Object.entries(value)) {
    if (!isEnvVarName(name)) {
      throw new TypeError(`${where}: "env" has an invalid variable name ${JSON.stringify(name)} (a name is ${ENV_VAR_NAME_RULE})`);
    }
    if (entry !== undefined && (typeof entry !== "string" || entry.includes("\0"))) {
      // The value is not quoted: it may well be a secret.
      throw new TypeError(`${where}: "env.${name}" must be a string without NUL (or undefined to remove it)`);
    }
  }
  return value as Record<string, string | undefined>;
}
