import tseslint from 'typescript-eslint';

const impure = {
  patterns: [
    { group: ['node:*', '@nestjs/*', '@mikro-orm/*', '@kurrent/*', 'kafkajs', 'amqplib', 'better-sqlite3', 'luxon'], message: 'libs/domain and the plugin policies and admission modules are pure: no framework, I/O or clock' },
  ],
};
const clockAndRandomness = [
  { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'time comes in as command data' },
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'time comes in as command data' },
  { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'randomness comes in as a function' },
  { selector: "CallExpression[callee.name='randomUUID']", message: 'ids come in as command data' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {},
  },
  {
    // the domain, and every resource type's allocation policy and admission module (their effects adapters do I/O)
    files: [
      'libs/domain/src/**/*.ts',
      'libs/plugins/src/query/**/*.ts',
      'libs/plugins/src/admission/**/*.ts',
      'libs/plugins/src/physical-host/*.ts',
      'libs/plugins/src/*/*.policy.ts',
      'libs/plugins/src/*/*.admission.ts',
    ],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', impure],
      'no-restricted-syntax': ['error', ...clockAndRandomness],
    },
  },
);
