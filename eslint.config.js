// Lint: the recommended JavaScript and TypeScript rules, type-aware, over sources, tests and examples.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "tools/*/node_modules/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "error",
    },
  },
  {
    // Plain JavaScript (benchmarks, fixtures) runs on Node.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: globals.node },
  },
  {
    // Examples, benchmarks, fixtures and the CLI talk to a terminal on purpose.
    files: ["examples/**", "bench/**", "test/fixtures/**", "src/cli/**", "tools/**"],
    rules: { "no-console": "off" },
  },
);
