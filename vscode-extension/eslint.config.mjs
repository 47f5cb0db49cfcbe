// Lint with type information: floating promises matter in start/stop code.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/", "e2e/", "eslint.config.mjs"] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
    },
  },
);
