import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const services = ['gateway', 'identity', 'command', 'query', 'worker'];

/** Services never import each other; only the embedded launcher composes them. */
const serviceBoundaries = services.map((name) => ({
  files: [`services/${name}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: services
              .filter((s) => s !== name)
              .flatMap((s) => [`@renkei/${s}`, `@renkei/${s}/*`, `**/services/${s}/**`]),
            message: 'Services never import each other; share code through libs/*.',
          },
          { group: ['@renkei/embedded', '**/services/embedded/**'], message: 'Only the launcher composes services.' },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.data/**',
      'web/src/routeTree.gen.ts',
      'web/test-results/**',
      'artifacts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  ...serviceBoundaries,
  {
    // Table queries are typed by the schema they read (`db.typed<…>()`); only migrations, frozen in
    // time, and the one place that opens the connection may use an untyped Kysely.
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['**/*.migrations.ts', 'libs/db/src/migrate.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'TSTypeReference[typeName.name=/^(Kysely|Transaction)$/] > TSTypeParameterInstantiation > TSAnyKeyword',
          message: 'Type the connection with the tables it reads (db.typed<…>()); Kysely<any> is for migrations only.',
        },
      ],
    },
  },
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@renkei/gateway',
                '@renkei/identity',
                '@renkei/command',
                '@renkei/query',
                '@renkei/worker',
                '@renkei/embedded',
                '**/services/**',
              ],
              message: 'libs never depend on services.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@renkei/*',
                '!@renkei/contracts',
                '**/services/**',
                '**/libs/db/**',
                '**/libs/event-store/**',
                '**/libs/projections/**',
                '**/libs/service-kit/**',
              ],
              message: 'web may import @renkei/contracts and browser-safe code only.',
            },
          ],
        },
      ],
    },
  },
);
