import { describe, expect, it } from "vitest";
import { StdioTransport, defaultEnvAllow } from "../../src/index.js";
import { DEFAULT_ENV_ALLOW_WINDOWS, childEnv } from "../../src/transport/stdio/child-env.js";
import { ROOT, firstText, fixture, useCleanup } from "./helpers.js";

describe("child environment: allow-list", () => {
  const parent = {
    HOME: "/home/ada",
    PATH: "/usr/bin",
    AWS_SECRET_ACCESS_KEY: "aws-secret",
    GITHUB_TOKEN: "gh-token",
    LANG: "fr_FR.UTF-8",
  };

  it("inherits only the default list when nothing is named", () => {
    const env = childEnv({ parent, platform: "linux" });
    expect(env).toEqual({ HOME: "/home/ada", PATH: "/usr/bin" });
  });

  it("inherits exactly the names in envAllow, and adds the explicit env over them", () => {
    const env = childEnv({ parent, platform: "linux", allow: ["PATH", "LANG"], env: { PATH: "/opt/bin", API_KEY: "given" } });
    expect(env).toEqual({ PATH: "/opt/bin", LANG: "fr_FR.UTF-8", API_KEY: "given" });
  });

  it("removes an inherited variable given as undefined in env", () => {
    expect(childEnv({ parent, platform: "linux", env: { HOME: undefined } })).toEqual({ PATH: "/usr/bin" });
  });

  it("never passes an exported shell function implicitly", () => {
    const env = childEnv({ parent: { PATH: "() { :; }; echo pwned" }, platform: "linux", allow: ["PATH"] });
    expect(env).toEqual({});
  });

  it("matches names without regard to case on Windows, without doubling them", () => {
    const env = childEnv({
      parent: { Path: "C:\\Windows", SystemRoot: "C:\\Windows", GITHUB_TOKEN: "gh-token" },
      platform: "win32",
      env: { PATH: "C:\\tools" },
    });
    expect(env).toEqual({ SystemRoot: "C:\\Windows", PATH: "C:\\tools" });
  });

  it("lists on Windows what a process needs to start", () => {
    for (const name of ["PATH", "PATHEXT", "SYSTEMROOT", "COMSPEC", "TEMP"]) expect(DEFAULT_ENV_ALLOW_WINDOWS).toContain(name);
    expect(defaultEnvAllow("linux")).toEqual(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]);
  });

  it("refuses envAllow and env entries that are not names and strings, without quoting a value", () => {
    expect(() => new StdioTransport({ command: "node", envAllow: ["PATH", "A=B"] })).toThrow(/envAllow\[1\]/);
    expect(() => new StdioTransport({ command: "node", envAllow: "PATH" as never })).toThrow(/envAllow/);
    let message = "";
    try {
      new StdioTransport({ command: "node", env: { TOKEN: 42 as never } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("env.TOKEN");
    expect(message).not.toContain("42");
  });
});

describe("child environment: a real child", () => {
  const cleanup = useCleanup();

  async function childEnvOf(transport: StdioTransport): Promise<Record<string, string>> {
    const client = await cleanup.connect(transport);
    return JSON.parse(firstText(await client.callTool("env"))) as Record<string, string>;
  }

  it("a secret in this process's environment never reaches the child unless named", async () => {
    process.env.AWS_SECRET_ACCESS_KEY = "aws-secret-of-the-parent";
    process.env.GITHUB_TOKEN = "gh-token-of-the-parent";
    try {
      const env = await childEnvOf(fixture("stdio-print-env.mjs"));
      expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
      expect(env.GITHUB_TOKEN).toBeUndefined();
      expect(JSON.stringify(env)).not.toContain("of-the-parent");
      // Only the default names (plus what the OS itself adds to every process) are there.
      const allowed = new Set([...defaultEnvAllow(), "PWD", "SHLVL", "_", "OLDPWD"]);
      expect(Object.keys(env).filter((name) => !allowed.has(name))).toEqual([]);
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.AWS_SECRET_ACCESS_KEY;
      delete process.env.GITHUB_TOKEN;
    }
  });

  it("a variable named in envAllow is inherited, and env adds explicit ones", async () => {
    process.env.MCPWIRE_TEST_SHARED = "shared-value";
    process.env.MCPWIRE_TEST_PRIVATE = "private-value";
    try {
      const env = await childEnvOf(
        fixture("stdio-print-env.mjs", [], { envAllow: ["PATH", "MCPWIRE_TEST_SHARED"], env: { SERVER_API_KEY: "given" } }),
      );
      expect(env.MCPWIRE_TEST_SHARED).toBe("shared-value");
      expect(env.MCPWIRE_TEST_PRIVATE).toBeUndefined();
      expect(env.SERVER_API_KEY).toBe("given");
      expect(env.HOME).toBeUndefined(); // envAllow replaces the default list
    } finally {
      delete process.env.MCPWIRE_TEST_SHARED;
      delete process.env.MCPWIRE_TEST_PRIVATE;
    }
  });

  it("starts in the given cwd", async () => {
    const client = await cleanup.connect(fixture("stdio-print-env.mjs", [], { cwd: `${ROOT}test` }));
    expect(firstText(await client.callTool("cwd"))).toBe(`${ROOT}test`);
  });
});
