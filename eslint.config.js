// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'src/generated/', 'src/dashboard/ui/control-operations.ts', 'bench/results/', 'tmp-measure/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Handlers must be typed; `any` hides contract drift.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Nothing reads the wall clock except src/clock/real-time.ts.
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Ask the workspace clock (src/clock), never Date.now().' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Ask the workspace clock (src/clock), never new Date().' },
      ],
    },
  },
  {
    files: ['src/clock/real-time.ts', 'test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
