/**
 * Where an OAuth client keeps what it obtained for a server: its registration at an
 * authorization server, and its tokens. Everything is keyed by the resource (the server's
 * canonical URI) and the issuer of the authorization server: a registration or token of one
 * issuer is never presented to another (basic/authorization, "Authorization Server Binding").
 *
 * `memoryTokenStore()` is the default: nothing outlives the process. `fileTokenStore(dir?)` keeps
 * one file per server under the user's configuration directory, readable by the user alone
 * (0600 in a 0700 folder), each write to a temporary file renamed over the old one, so a crash
 * mid-write never leaves half a file. Writes of one store are made one after another; two
 * processes writing the same server's file at once may lose one update (the last rename wins),
 * which costs at worst a login or a refresh again.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

export interface TokenStoreKey {
  /** The server's canonical URI, as sent in `resource`. */
  resource: string;
  /** The authorization server's issuer identifier. */
  issuer: string;
}

/** A client registration at one authorization server. */
export interface StoredClient {
  client_id: string;
  client_secret?: string;
  /** When the secret expires, in seconds since the epoch (0 or absent: never). */
  client_secret_expires_at?: number;
  token_endpoint_auth_method?: string;
  redirect_uris?: string[];
}

export interface StoredTokens {
  access_token: string;
  token_type: string;
  /** When the access token expires, in milliseconds since the epoch. */
  expires_at?: number;
  refresh_token?: string;
  /** The scope granted (or asked for, when the server did not say). */
  scope?: string;
  /** The thumbprint of the DPoP key the tokens are bound to, if any. */
  dpop_jkt?: string;
}

export interface StoredCredentials {
  client?: StoredClient;
  tokens?: StoredTokens;
  /** The scopes asked for so far, for the union of a step-up. */
  scopes?: string[];
}

export interface TokenStore {
  get(key: TokenStoreKey): Promise<StoredCredentials | undefined> | StoredCredentials | undefined;
  set(key: TokenStoreKey, value: StoredCredentials): Promise<void> | void;
  /** Forgets one issuer's credentials for the resource, or every issuer's when `issuer` is absent. */
  delete(key: { resource: string; issuer?: string }): Promise<void> | void;
}

/** Keeps credentials in this process only. */
export function memoryTokenStore(): TokenStore {
  const entries = new Map<string, Map<string, StoredCredentials>>();
  return {
    get: (key) => clone(entries.get(key.resource)?.get(key.issuer)),
    set: (key, value) => {
      let byIssuer = entries.get(key.resource);
      if (byIssuer === undefined) entries.set(key.resource, (byIssuer = new Map()));
      byIssuer.set(key.issuer, clone(value)!);
    },
    delete: (key) => {
      if (key.issuer === undefined) entries.delete(key.resource);
      else entries.get(key.resource)?.delete(key.issuer);
    },
  };
}

/** The folder `fileTokenStore()` uses when none is given. */
export function defaultTokenDirectory(env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === "win32") return join(env.APPDATA ?? join(homedir(), "AppData", "Roaming"), "mcpwire", "auth");
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "mcpwire", "auth");
}

/** The file of one resource: a hash of it, so that no URL becomes a path. */
export function tokenFileName(resource: string): string {
  return `${createHash("sha256").update(resource).digest("hex").slice(0, 32)}.json`;
}

interface TokenFile {
  resource: string;
  issuers: Record<string, StoredCredentials>;
}

/** Keeps credentials in one file per server under `dir` (default: `defaultTokenDirectory()`). */
export function fileTokenStore(dir: string = defaultTokenDirectory()): TokenStore {
  if (typeof dir !== "string" || dir === "") throw new TypeError("fileTokenStore: the folder must be a non-empty path");
  // Writes to one file are made one after another, so that two updates never interleave.
  const queues = new Map<string, Promise<unknown>>();
  const pathOf = (resource: string) => join(dir, tokenFileName(resource));

  const read = async (resource: string): Promise<TokenFile> => {
    let text: string;
    try {
      text = await readFile(pathOf(resource), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { resource, issuers: {} };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as TokenFile;
      if (parsed.resource === resource && typeof parsed.issuers === "object" && parsed.issuers !== null) return parsed;
    } catch {
      // A file that cannot be read as ours holds nothing usable; the next write replaces it.
    }
    return { resource, issuers: {} };
  };

  const write = async (file: TokenFile): Promise<void> => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    const path = pathOf(file.resource);
    if (Object.keys(file.issuers).length === 0) {
      await rm(path, { force: true });
      return;
    }
    const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  };

  const update = (resource: string, change: (file: TokenFile) => void): Promise<void> => {
    const previous = queues.get(resource) ?? Promise.resolve();
    const next = previous
      .catch(() => {})
      .then(async () => {
        const file = await read(resource);
        change(file);
        await write(file);
      });
    queues.set(resource, next);
    void next.finally(() => {
      if (queues.get(resource) === next) queues.delete(resource);
    }).catch(() => {});
    return next;
  };

  return {
    get: async (key) => {
      await (queues.get(key.resource) ?? Promise.resolve()).catch(() => {});
      return (await read(key.resource)).issuers[key.issuer];
    },
    set: (key, value) => {
      // Copied now: a change the caller makes before the write lands does not reach the file.
      const copy = clone(value)!;
      return update(key.resource, (file) => {
        file.issuers[key.issuer] = copy;
      });
    },
    delete: (key) =>
      update(key.resource, (file) => {
        if (key.issuer === undefined) file.issuers = {};
        else delete file.issuers[key.issuer];
      }),
  };
}

function clone<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as T);
}
