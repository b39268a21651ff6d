/**
 * Where code may depend on what (npm run lint runs it). The layers, from the bottom: libs/domain
 * (pure), libs/event-store, libs/read-model, libs/plugins, libs/application, libs/observability;
 * apps on top, never on each other. A layer imports only those below it: the ports the adapters of
 * libs/plugins implement live there too (src/ports), below the use cases that call them. Imports across
 * them use package.json's "imports" aliases (#domain/..., #application/...), whose "types" condition
 * points at the sources.
 */
module.exports = {
  forbidden: [
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'an import nothing answers (a mistyped #alias) would also hide its edges from the rules below',
      from: {},
      to: { couldNotResolve: true },
    },
    { name: 'no-circular', severity: 'error', comment: 'import circles make every change harder', from: {}, to: { circular: true } },
    {
      name: 'domain-is-self-contained',
      severity: 'error',
      comment: 'libs/domain imports nothing but itself (pure deciders)',
      from: { path: '^libs/domain/', pathNot: '\\.spec\\.ts$|/testing/|/shared/specification\\.ts$' },
      to: { pathNot: '^libs/domain/' },
    },
    {
      name: 'event-store-never-imports-upward',
      severity: 'error',
      comment: 'the log knows nothing of what is built on it: read models, plugins, use cases, observability',
      from: { path: '^libs/event-store/' },
      to: { path: '^libs/(read-model|plugins|application|observability)/' },
    },
    {
      name: 'read-model-never-imports-upward',
      severity: 'error',
      comment:
        'read models fold the log (domain, event-store) and answer queries; the layers above read them, never the reverse; ' +
        "specs do not ship and are exempt: the lease view's specs fold with every reservation type's view (libs/plugins' evolveLeaseView)",
      from: { path: '^libs/read-model/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^libs/(plugins|application|observability)/' },
    },
    {
      name: 'plugins-never-import-upward',
      severity: 'error',
      comment:
        'the adapters implement ports of their own layer (src/ports), so the use cases depend on plugins and never the reverse; ' +
        "specs do not ship and are exempt: the admission specs run on the application's real calendars " +
        '(its testing/calendars.fixture.ts, a BookingPlan over a WriteIndex), which belong to the write model above',
      from: { path: '^libs/plugins/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^libs/(application|observability)/' },
    },
    {
      name: 'application-never-imports-observability',
      severity: 'error',
      comment: 'logs, metrics and health are wired by the apps around the use cases, not from inside them',
      from: { path: '^libs/application/' },
      to: { path: '^libs/observability/' },
    },
    {
      name: 'application-is-transport-free',
      severity: 'error',
      comment: 'libs/application knows no HTTP framework and no app',
      from: { path: '^libs/application/' },
      to: { path: ['^apps/', '(^|/)@nestjs/platform-', '(^|/)fastify(/|$)', '(^|/)@fastify/', '(^|/)express(/|$)'] },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-nest-below-apps',
      severity: 'error',
      comment: 'Nest is a transport concern',
      from: { path: '^libs/' },
      to: { path: '(^|/)@nestjs/' },
    },
    {
      name: 'apps-never-import-each-other',
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/cli/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'cli-uses-the-projector-surface-only',
      severity: 'error',
      comment: "the operators' CLI replays the log through the projector's own projections (verify): through its index, and no other app",
      from: { path: '^apps/cli/' },
      to: { path: '^apps/', pathNot: ['^apps/cli/', '^apps/projector/src/index\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/|^node_modules/|^data/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
