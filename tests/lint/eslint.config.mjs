// ESLint over the plain JavaScript the api serves (the dashboard, the public pages' scripts) and the
// browser scripts of the SDK: the recommended rules (undefined names, unused variables, unreachable
// code ...) and no import circles between the dashboard's modules.
import js from '@eslint/js';
import globals from 'globals';
import importX from 'eslint-plugin-import-x';

export default [
  js.configs.recommended,
  {
    files: ['api/assets/**/*.js', 'sdk/script/*.js'],
    plugins: { 'import-x': importX },
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.browser },
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-unresolved': 'error',
      'import-x/named': 'error',
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      // Storage and JSON may fail in a visitor's browser (private mode, quotas): nothing to do then.
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Classic scripts, not modules: the analytics snippet and the widgets are loaded by a script tag.
    files: ['sdk/script/*.js', 'api/assets/*.js'],
    languageOptions: { sourceType: 'script' },
  },
];
