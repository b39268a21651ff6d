import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

/**
 * The transports send commands through the CommandBus and reads through the QueryBus (docs/architecture.md): only the
 * handlers (`*.handlers.ts`, the reactor's commands/) and the composition roots hand a use case its work.
 */
const APPLICATION = 'libs/application/src/';

/** A use case or a query service: a class its file's role names. */
const SERVICE_FILE = /\.(use-case|use-cases|queries)\.ts$/;

const tsFilesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
    .map((name) => join(dir, name));

/**
 * The senders: the API's controllers and resolvers and the resolvers' read path, and the reactor outside its bus. GraphQL's
 * subscriptions follow the log itself (a stream, not a query): they stay on it.
 */
const senders = (): string[] => [
  ...tsFilesUnder('apps/api/src').filter((file) => /\.(controller|resolver)\.ts$/.test(file) && !file.endsWith('subscription.resolver.ts')),
  'apps/api/src/graphql/request-reads.ts',
  ...tsFilesUnder('apps/reactor/src').filter((file) => !file.startsWith('apps/reactor/src/commands/')),
];

const exportedClasses = (file: string): ReadonlySet<string> => {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  return new Set(
    source.statements.flatMap((statement) =>
      ts.isClassDeclaration(statement) &&
      statement.name !== undefined &&
      (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
        ? [statement.name.text]
        : [],
    ),
  );
};

/** `#application/leases/lease.use-cases.js` -> its source file, when it is a use case's or a query service's. */
const serviceFileOf = (specifier: string): string | null => {
  if (!specifier.startsWith('#application/')) return null;
  const file = `${APPLICATION}${specifier.slice('#application/'.length).replace(/\.js$/, '.ts')}`;
  return SERVICE_FILE.test(file) ? file : null;
};

/** The use-case and query classes `text` imports as values (a type-only import hands no work to anything). */
const serviceClassesImported = (file: string, text: string): string[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    const clause = statement.importClause;
    const target = serviceFileOf(statement.moduleSpecifier.text);
    if (target === null || clause === undefined || clause.isTypeOnly || clause.namedBindings === undefined) return [];
    const classes = exportedClasses(target);
    if (ts.isNamespaceImport(clause.namedBindings)) return classes.size === 0 ? [] : [`* as ${clause.namedBindings.name.text}`];
    return clause.namedBindings.elements
      .filter((element) => !element.isTypeOnly && classes.has((element.propertyName ?? element.name).text))
      .map((element) => (element.propertyName ?? element.name).text);
  });
};

describe('architecture rules: the buses', () => {
  it('controllers, resolvers and the reactor import no use case or query class: they send through CommandBus and QueryBus', () => {
    const files = senders();
    const found = files.flatMap((file) =>
      serviceClassesImported(file, readFileSync(join(ROOT, file), 'utf8')).map((name) => `${file}: ${name}`),
    );
    expect(found).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'apps/api/src/leases/lease.controller.ts',
        'apps/api/src/graphql/mutation.resolver.ts',
        'apps/reactor/src/lease-reactions.ts',
        'apps/reactor/src/healing/healing.runner.ts',
      ]),
    );
  });

  it('catches a planted violation, and lets constants, functions and types through', () => {
    const planted = `import { LEASE_POLICY, LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { ReadQueries as Reads, leaseNotFound } from '#application/queries/read.queries.js';
import type { HostUseCases } from '#application/hosts/host.use-cases.js';
import { type UsageQueries, rateCardView } from '#application/usage/usage.queries.js';
import * as healing from '#application/healing/healing.use-case.js';
import { CommandHandler } from '#application/command-handler.js';
`;
    expect(serviceClassesImported('apps/api/src/leases/planted.controller.ts', planted)).toEqual([
      'LeaseUseCases',
      'ReadQueries',
      '* as healing',
    ]);
  });
});
