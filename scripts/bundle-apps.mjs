// Bundles the API's compiled start (dist/apps/api/src/server.js, emitted by tsc with its decorator
// metadata) with its dependencies into dist/apps/api/src/main.js, in place of tsc's small main.js, and
// the reactor's (its main.js, with Nest for its CommandBus) likewise. A start then reads and compiles one
// file instead of resolving, reading and compiling some 3,000 (Nest, Apollo, MikroORM, swagger,
// es-toolkit's hundreds of modules): docs/operations.md, "The API's start".
import { readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const CHUNK_PREFIX = 'bundle-';
// the CommonJS packages in the bundle call require() (Node built-ins, the externals below)
const BANNER = "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);";

/** Each app's folder, the compiled module its main.js is bundled from, and what else it leaves to Node. */
const APPS = [
  { outDir: join(ROOT, 'dist/apps/api/src'), entry: 'server.js', external: [] },
  // The reactor's main.js is its own entry: one bundled already (this script run again without tsc) is left as it is. Its Nest
  // application context has no HTTP adapter: Express, which Nest would import on demand, stays out (a chunk sharing Nest's core
  // with main.js would evaluate Nest's decorators before main.js loaded reflect-metadata).
  { outDir: join(ROOT, 'dist/apps/reactor/src'), entry: 'main.js', external: ['@nestjs/platform-express'] },
];

/**
 * Left to Node at run time: native addons (and their JavaScript wrappers, which find the addon by
 * path), and the optional packages Nest, Apollo, MikroORM and knex load only when configured for
 * them, which are not installed here (Nest and knex answer a missing one themselves).
 */
const EXTERNAL = [
  'better-sqlite3',
  'pg-native',
  '@kurrent/*',
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/websockets',
  '@nestjs/websockets/*',
  '@nestjs/platform-express',
  '@as-integrations/express5',
  '@apollo/gateway',
  '@apollo/subgraph',
  '@apollo/subgraph/*',
  '@fastify/multipart',
  '@fastify/static',
  '@fastify/view',
  'ts-morph',
  'sqlite3',
  'libsql',
  'mysql',
  'mysql2',
  'mariadb/*',
  'oracledb',
  'tedious',
];

/**
 * Our modules find files next to them (the calendar's browser modules: `new URL('../../web/...',
 * import.meta.url)`). In the bundle import.meta.url is the bundle's own: each of our modules gets
 * its original URL back, relative to the bundle's folder, so that the dist tree can still be moved.
 */
const ownModuleUrls = (outDir) => ({
  name: 'own-module-urls',
  setup(bundle) {
    bundle.onLoad({ filter: /[/\\]dist[/\\](apps|libs)[/\\].*\.js$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      if (/import\.meta\.(dirname|filename)/.test(text))
        throw new Error(`${path}: use import.meta.url (the bundle gives each module its own back)`);
      const url = `new URL(${JSON.stringify(relative(outDir, path).split(sep).join('/'))}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(path) };
    });
  },
});

const removeOldChunks = async (outDir) => {
  for (const name of await readdir(outDir)) if (name.startsWith(CHUNK_PREFIX)) await rm(join(outDir, name));
};

const bundled = async (file) => (await readFile(file, 'utf8')).startsWith(BANNER);

const bundleApp = ({ outDir, entry, external }) =>
  build({
    entryPoints: { main: join(outDir, entry) },
    outdir: outDir,
    allowOverwrite: true,
    bundle: true,
    // the KurrentDB store and its gRPC client are imported only when configured: a chunk of their own, not read at each start
    splitting: true,
    chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // MikroORM's entities, GraphQL's types and Nest's providers are named after their classes
    keepNames: true,
    sourcemap: 'linked',
    external: [...EXTERNAL, ...external],
    plugins: [ownModuleUrls(outDir)],
    banner: { js: BANNER },
    logLevel: 'warning',
  });

for (const app of APPS) {
  if (await bundled(join(app.outDir, app.entry))) continue;
  await removeOldChunks(app.outDir);
  await bundleApp(app);
}
