import tseslint from 'typescript-eslint';

const impure = {
  patterns: [
    {
      group: ['node:*', '@nestjs/*', '@mikro-orm/*', '@kurrent/*', 'kafkajs', 'amqplib', 'better-sqlite3', 'luxon'],
      message: 'libs/domain and the plugin policies and admission modules are pure: no framework, I/O or clock',
    },
  ],
};
const clockAndRandomness = [
  { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'time comes in as command data' },
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'time comes in as command data' },
  { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'randomness comes in as a function' },
  { selector: "CallExpression[callee.name='randomUUID']", message: 'ids come in as command data' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    // type-checked rules everywhere (the tsconfig's project), exhaustive switches included
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // adapters implement async ports with synchronous bodies on purpose: a failure must be a rejected promise, never a throw
      '@typescript-eslint/require-await': 'off',
      // a type module adds its quotas and metrics to the domain's maps by augmentation, which only an interface can do
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Prettier wraps code at 140 (.prettierrc.json); what it cannot wrap, comments, is held to the same limit
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  {
    // tests read JSON answers and logs whose shape they are checking: `any` is their honest type there
    files: ['test/**/*.ts', '**/*.spec.ts', '**/testing/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // fakes and fixtures implement async interfaces with plain bodies, and pass deciders' functions around
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // the domain, every resource type's reservation state, rules, holdings, allocation policy and admission module (their
    // effects adapters do I/O), and the ports those adapters implement with the zone rule the use cases share with them
    files: [
      'libs/domain/src/**/*.ts',
      'libs/plugins/src/query/**/*.ts',
      'libs/plugins/src/admission/**/*.ts',
      'libs/plugins/src/ports/**/*.ts',
      'libs/plugins/src/zone-rule.ts',
      'libs/plugins/src/physical-host/*.ts',
      // the network kind's folder: its decider, rules, registry, view and kind module (its adapters sit in subfolders)
      'libs/plugins/src/network/*.ts',
      'libs/plugins/src/*/*.reservation.ts',
      'libs/plugins/src/*/*.rules.ts',
      'libs/plugins/src/*/*.holdings.ts',
      'libs/plugins/src/*/*.policy.ts',
      'libs/plugins/src/*/*.admission.ts',
    ],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', impure],
      'no-restricted-syntax': ['error', ...clockAndRandomness],
    },
  },
  {
    // the application layer takes time, ids and the caller as command data: only transports read the clock or the request
    files: ['libs/application/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**'],
    rules: { 'no-restricted-syntax': ['error', ...clockAndRandomness] },
  },
);
