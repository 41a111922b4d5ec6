// `npm run lint`: ESLint with typescript-eslint's recommended rules (syntax only, no type
// information, so it runs in seconds), and a few of our own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'data/', 'coverage/', '.tap/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // Tests and the HTTP edge handle untyped JSON; `any` there is deliberate.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      'prefer-const': 'error',
      'no-var': 'error',
    },
  },
  {
    // Examples for users are plain Node scripts that print what they receive.
    files: ['examples/**/*.mjs', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
  },
  {
    // Benchmarks and the CLI print their results.
    files: ['bench/**/*.ts', 'src/cli.ts'],
    rules: { 'no-console': 'off' },
  },
);
