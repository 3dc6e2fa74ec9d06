// Lint rules that catch what the compiler does not: a promise nobody awaits (a posting that may run after
// its transaction, an activity call a workflow forgets), and misused promises in callbacks.
// The layout is checked too (ESLint Stylistic, `npm run format` fixes it): one indentation, one quote, one
// line length (180), so a diff shows what changed and not who formatted it.
// Layering (which folder may import which) is enforced by test/architecture.test.ts.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

const layout = stylistic.configs.customize({ indent: 2, quotes: 'single', semi: true, braceStyle: '1tbs', commaDangle: 'always-multiline', arrowParens: true, jsx: false });

export default tseslint.config(
  { ignores: ['node_modules/', 'bench/results/', '.data/', 'dist/', 'examples/deposit-client/coopbank-api.d.ts'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin, '@stylistic': stylistic },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      ...layout.rules,
      '@stylistic/max-len': ['error', { code: 180, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true }],
    },
  },
);
