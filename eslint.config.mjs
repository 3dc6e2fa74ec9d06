// Lint rules that catch what the compiler does not: a promise nobody awaits (a posting that may run after
// its transaction, an activity call a workflow forgets), and misused promises in callbacks.
// The layout is Prettier's (.prettierrc.json, `npm run format`), checked by `npm run lint` before ESLint.
// ESLint keeps the line length (120), which Prettier does not enforce on strings and comments.
// Migrations are history, kept as written. Layering is enforced by test/architecture.test.ts.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'bench/results/', '.data/', 'dist/', 'examples/deposit-client/coopbank-api.d.ts'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, '@stylistic': stylistic },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true }],
    },
  },
  { files: ['db/migrations/**/*.ts'], rules: { '@stylistic/max-len': 'off' } },
);
