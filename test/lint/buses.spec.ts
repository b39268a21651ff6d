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

const sourceOf = (specifier: string): string | null =>
  specifier.startsWith('#application/') ? `${APPLICATION}${specifier.slice('#application/'.length).replace(/\.js$/, '.ts')}` : null;

/** The value imports from libs/application of `text`, by source file (a type-only import hands no work to anything). */
const applicationImports = (file: string, text: string): { target: string; clause: ts.ImportClause }[] =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest).statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    const target = sourceOf(statement.moduleSpecifier.text);
    const clause = statement.importClause;
    if (target === null || clause === undefined || clause.isTypeOnly || clause.namedBindings === undefined) return [];
    return [{ target, clause }];
  });

const namesImported = (clause: ts.ImportClause): string[] =>
  clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings)
    ? clause.namedBindings.elements.filter((element) => !element.isTypeOnly).map((element) => (element.propertyName ?? element.name).text)
    : [];

/** The handlers: the bus's side, where the use cases are handed their work. */
const handlerFiles = (): string[] => [
  ...tsFilesUnder('apps/api/src').filter((file) => file.endsWith('.handlers.ts')),
  ...tsFilesUnder('apps/reactor/src/commands'),
];

/** Each libs/application file's classes a handler wraps (the audit log's `WriteRefusals`, ...), whatever the file's role. */
const wrappedClasses = (): ReadonlyMap<string, ReadonlySet<string>> => {
  const wrapped = new Map<string, Set<string>>();
  for (const file of handlerFiles())
    for (const { target, clause } of applicationImports(file, readFileSync(join(ROOT, file), 'utf8'))) {
      const classes = exportedClasses(target);
      const names = namesImported(clause).filter((name) => classes.has(name));
      wrapped.set(target, new Set([...(wrapped.get(target) ?? []), ...names]));
    }
  return wrapped;
};

/** What no sender may import from `target`: every class of a use case or query service, and any class a handler wraps. */
const forbiddenIn = (target: string, wrapped: ReadonlyMap<string, ReadonlySet<string>>): ReadonlySet<string> =>
  SERVICE_FILE.test(target) ? exportedClasses(target) : (wrapped.get(target) ?? new Set());

/** The service classes `text` imports as values. */
const serviceClassesImported = (file: string, text: string, wrapped: ReadonlyMap<string, ReadonlySet<string>>): string[] =>
  applicationImports(file, text).flatMap(({ target, clause }) => {
    const forbidden = forbiddenIn(target, wrapped);
    if (clause.namedBindings !== undefined && ts.isNamespaceImport(clause.namedBindings))
      return forbidden.size === 0 ? [] : [`* as ${clause.namedBindings.name.text}`];
    return namesImported(clause).filter((name) => forbidden.has(name));
  });

describe('architecture rules: the buses', () => {
  it('controllers, resolvers and the reactor import no use case or query class: they send through CommandBus and QueryBus', () => {
    const files = senders();
    const wrapped = wrappedClasses();
    const found = files.flatMap((file) =>
      serviceClassesImported(file, readFileSync(join(ROOT, file), 'utf8'), wrapped).map((name) => `${file}: ${name}`),
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
import { MAX_AUDIT_DAYS, WriteRefusals } from '#application/audit/write-refusals.js';
`;
    expect(serviceClassesImported('apps/api/src/leases/planted.controller.ts', planted, wrappedClasses())).toEqual([
      'LeaseUseCases',
      'ReadQueries',
      '* as healing',
      'WriteRefusals',
    ]);
  });
});
