/**
 * The token stores: the in-memory default and the file store (one file per resource, readable
 * by the user alone, replaced whole on every write, updates to one file never lost).
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileTokenStore, memoryTokenStore, tokenFileName, type StoredCredentials, type TokenStore } from "../../src/auth/token-store.js";

const RESOURCE = "https://mcp.example.com/mcp";
const OTHER_RESOURCE = "https://mcp.example.com/other";
const ISSUER_A = "https://auth-a.example.com";
const ISSUER_B = "https://auth-b.example.com";

const credentials = (token: string): StoredCredentials => ({
  client: { client_id: `client-${token}` },
  tokens: { access_token: token, token_type: "Bearer", refresh_token: `refresh-${token}` },
  scopes: ["a", "b"],
});

const onWindows = process.platform === "win32";

/** Checks both stores share: get/set/delete by issuer and for all issuers. */
function sharedBehaviour(name: string, make: () => TokenStore) {
  describe(`${name}: get, set, delete`, () => {
    it("reads back what was set, by resource and issuer", async () => {
      const store = make();
      await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
      await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
      await store.set({ resource: OTHER_RESOURCE, issuer: ISSUER_A }, credentials("other"));
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toEqual(credentials("a"));
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_B })).toEqual(credentials("b"));
      expect(await store.get({ resource: OTHER_RESOURCE, issuer: ISSUER_A })).toEqual(credentials("other"));
      expect(await store.get({ resource: OTHER_RESOURCE, issuer: ISSUER_B })).toBeUndefined();
      expect(await store.get({ resource: "https://unknown.example.com", issuer: ISSUER_A })).toBeUndefined();
    });

    it("a set replaces the issuer's credentials", async () => {
      const store = make();
      await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("first"));
      await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("second"));
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toEqual(credentials("second"));
    });

    it("deletes one issuer's credentials, leaving the other's", async () => {
      const store = make();
      await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
      await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
      await store.delete({ resource: RESOURCE, issuer: ISSUER_A });
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toBeUndefined();
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_B })).toEqual(credentials("b"));
    });

    it("deletes every issuer's credentials of one resource, and no other resource's", async () => {
      const store = make();
      await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
      await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
      await store.set({ resource: OTHER_RESOURCE, issuer: ISSUER_A }, credentials("other"));
      await store.delete({ resource: RESOURCE });
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toBeUndefined();
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_B })).toBeUndefined();
      expect(await store.get({ resource: OTHER_RESOURCE, issuer: ISSUER_A })).toEqual(credentials("other"));
    });

    it("deleting what is not there is no failure", async () => {
      const store = make();
      await store.delete({ resource: RESOURCE, issuer: ISSUER_A });
      await store.delete({ resource: RESOURCE });
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toBeUndefined();
    });

    it("keeps a copy: changing the value set or the value read changes nothing stored", async () => {
      const store = make();
      const value = credentials("a");
      await store.set({ resource: RESOURCE, issuer: ISSUER_A }, value);
      value.tokens!.access_token = "changed-after-set";
      value.scopes!.push("changed");
      const read = (await store.get({ resource: RESOURCE, issuer: ISSUER_A }))!;
      expect(read).toEqual(credentials("a"));
      read.tokens!.access_token = "changed-after-get";
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toEqual(credentials("a"));
    });

    it("concurrent sets to one resource both land", async () => {
      const store = make();
      await Promise.all([
        store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a")),
        store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b")),
        store.set({ resource: RESOURCE, issuer: "https://auth-c.example.com" }, credentials("c")),
      ]);
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toEqual(credentials("a"));
      expect(await store.get({ resource: RESOURCE, issuer: ISSUER_B })).toEqual(credentials("b"));
      expect(await store.get({ resource: RESOURCE, issuer: "https://auth-c.example.com" })).toEqual(credentials("c"));
    });
  });
}

sharedBehaviour("memoryTokenStore", () => memoryTokenStore());

describe("memoryTokenStore", () => {
  it("two stores share nothing", async () => {
    const first = memoryTokenStore();
    await first.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    expect(await memoryTokenStore().get({ resource: RESOURCE, issuer: ISSUER_A })).toBeUndefined();
  });
});

describe("fileTokenStore", () => {
  let root: string;
  let dir: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "mcpwire-token-store-"));
    dir = join(root, "auth");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  sharedBehaviour("fileTokenStore", () => fileTokenStore(dir));

  it("refuses an empty folder name", () => {
    expect(() => fileTokenStore("")).toThrow(TypeError);
  });

  it("writes one file per resource, named by a hash of it, holding every issuer", async () => {
    const store = fileTokenStore(dir);
    await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
    await store.set({ resource: OTHER_RESOURCE, issuer: ISSUER_A }, credentials("other"));
    expect((await readdir(dir)).sort()).toEqual([tokenFileName(RESOURCE), tokenFileName(OTHER_RESOURCE)].sort());
    expect(tokenFileName(RESOURCE)).toMatch(/^[0-9a-f]{32}\.json$/);
    const file = JSON.parse(await readFile(join(dir, tokenFileName(RESOURCE)), "utf8")) as { resource: string; issuers: Record<string, unknown> };
    expect(file.resource).toBe(RESOURCE);
    expect(Object.keys(file.issuers).sort()).toEqual([ISSUER_A, ISSUER_B]);
  });

  it.skipIf(onWindows)("keeps the file 0600 in a 0700 folder", async () => {
    const store = fileTokenStore(dir);
    await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, tokenFileName(RESOURCE)))).mode & 0o777).toBe(0o600);
  });

  it.skipIf(onWindows)("makes an existing folder 0700 again", async () => {
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await fileTokenStore(dir).set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it.skipIf(onWindows)("keeps the file 0600 after it is rewritten", async () => {
    const store = fileTokenStore(dir);
    await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
    expect((await stat(join(dir, tokenFileName(RESOURCE)))).mode & 0o777).toBe(0o600);
  });

  it("a second store on the folder reads what the first wrote", async () => {
    await fileTokenStore(dir).set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    const second = fileTokenStore(dir);
    expect(await second.get({ resource: RESOURCE, issuer: ISSUER_A })).toEqual(credentials("a"));
    expect(await second.get({ resource: RESOURCE, issuer: ISSUER_B })).toBeUndefined();
  });

  it("deleting every issuer removes the file; deleting one leaves it", async () => {
    const store = fileTokenStore(dir);
    const path = join(dir, tokenFileName(RESOURCE));
    await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
    await store.delete({ resource: RESOURCE, issuer: ISSUER_A });
    expect(await readdir(dir)).toEqual([tokenFileName(RESOURCE)]);
    await store.delete({ resource: RESOURCE });
    await expect(stat(path)).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readdir(dir)).toEqual([]);
  });

  it("deleting the last issuer one by one removes the file too", async () => {
    const store = fileTokenStore(dir);
    await store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    await store.delete({ resource: RESOURCE, issuer: ISSUER_A });
    expect(await readdir(dir)).toEqual([]);
  });

  it("concurrent sets and deletes to one resource apply in order, none lost", async () => {
    const store = fileTokenStore(dir);
    const issuers = Array.from({ length: 12 }, (_, i) => `https://auth-${i}.example.com`);
    await Promise.all(issuers.map((issuer, i) => store.set({ resource: RESOURCE, issuer }, credentials(`t${i}`))));
    for (const [i, issuer] of issuers.entries()) {
      expect(await store.get({ resource: RESOURCE, issuer })).toEqual(credentials(`t${i}`));
    }
    await Promise.all([
      store.delete({ resource: RESOURCE, issuer: issuers[0]! }),
      store.set({ resource: RESOURCE, issuer: issuers[1]! }, credentials("replaced")),
      store.delete({ resource: RESOURCE, issuer: issuers[2]! }),
    ]);
    const second = fileTokenStore(dir);
    expect(await second.get({ resource: RESOURCE, issuer: issuers[0]! })).toBeUndefined();
    expect(await second.get({ resource: RESOURCE, issuer: issuers[1]! })).toEqual(credentials("replaced"));
    expect(await second.get({ resource: RESOURCE, issuer: issuers[2]! })).toBeUndefined();
    expect(await second.get({ resource: RESOURCE, issuer: issuers[3]! })).toEqual(credentials("t3"));
  });

  it("a get issued right after a set sees it", async () => {
    const store = fileTokenStore(dir);
    const written = store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a"));
    const read = store.get({ resource: RESOURCE, issuer: ISSUER_A });
    await written;
    expect(await read).toEqual(credentials("a"));
  });

  it.each([
    ["not JSON", "{ this is not json"],
    ["JSON of another shape", JSON.stringify(["a", "b"])],
    ["another resource's file", JSON.stringify({ resource: "https://elsewhere.example.com", issuers: { [ISSUER_A]: credentials("x") } })],
    ["issuers that are not an object", JSON.stringify({ resource: RESOURCE, issuers: null })],
    ["an empty file", ""],
  ])("reads a corrupt file (%s) as empty, and the next write replaces it", async (_name, text) => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, tokenFileName(RESOURCE)), text);
    const store = fileTokenStore(dir);
    expect(await store.get({ resource: RESOURCE, issuer: ISSUER_A })).toBeUndefined();
    await store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b"));
    const file = JSON.parse(await readFile(join(dir, tokenFileName(RESOURCE)), "utf8")) as { resource: string; issuers: Record<string, unknown> };
    expect(file).toEqual({ resource: RESOURCE, issuers: { [ISSUER_B]: credentials("b") } });
  });

  it("leaves no temporary file behind", async () => {
    const store = fileTokenStore(dir);
    await Promise.all([
      store.set({ resource: RESOURCE, issuer: ISSUER_A }, credentials("a")),
      store.set({ resource: RESOURCE, issuer: ISSUER_B }, credentials("b")),
      store.set({ resource: OTHER_RESOURCE, issuer: ISSUER_A }, credentials("c")),
    ]);
    await store.delete({ resource: OTHER_RESOURCE });
    const names = await readdir(dir);
    expect(names).toEqual([tokenFileName(RESOURCE)]);
    expect(names.some((name) => name.endsWith(".tmp"))).toBe(false);
  });
});
