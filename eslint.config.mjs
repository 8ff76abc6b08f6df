// The JavaScript linter `make lint` runs (pinned in package-lock.json): the recommended rules on the
// site's modules (browser globals, ES modules) and on the node tests; the vendored library is left as
// it is published.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["docs/javascripts/vendor/**", "node_modules/**", "site/**", ".venv/**"] },
  js.configs.recommended,
  {
    files: ["docs/javascripts/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, document$: "readonly" },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["tests/js/**/*.mjs", "*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
