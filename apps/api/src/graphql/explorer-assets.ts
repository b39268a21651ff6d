import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * GraphiQL served by this service itself: GraphiQL 3's browser bundle and React 18's, from the
 * installed packages, and a start script of our own; nothing is loaded from another origin.
 */
const require = createRequire(import.meta.url);
/** A file of an installed package: through its package.json, since the packages' exports do not list their browser bundles. */
const resolve = (file: string): string => {
  const [name, ...rest] = file.split('/');
  return join(dirname(require.resolve(`${name}/package.json`)), ...rest);
};

const JAVASCRIPT = 'text/javascript; charset=utf-8';

export const EXAMPLE_QUERY = `query Leases {
  leases(first: 10) {
    edges { node { id name status start_date end_date reservations { id resource_type end_action } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Renders GraphiQL against /graphql; the token goes in its Headers tab as X-Auth-Token. */
const START_SCRIPT = `const fetcher = GraphiQL.createFetcher({ url: location.origin + '/graphql' });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: ${JSON.stringify(EXAMPLE_QUERY)},
    defaultHeaders: JSON.stringify({ 'X-Auth-Token': '' }, null, 2),
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
  }),
);
`;

export type ExplorerAsset =
  | { readonly kind: 'file'; readonly file: string; readonly type: string }
  | { readonly kind: 'text'; readonly text: string; readonly type: string };

const ASSETS: Readonly<Record<string, () => ExplorerAsset>> = {
  'react.production.min.js': () => ({ kind: 'file', file: resolve('react/umd/react.production.min.js'), type: JAVASCRIPT }),
  'react-dom.production.min.js': () => ({ kind: 'file', file: resolve('react-dom/umd/react-dom.production.min.js'), type: JAVASCRIPT }),
  'graphiql.min.js': () => ({ kind: 'file', file: resolve('graphiql/graphiql.min.js'), type: JAVASCRIPT }),
  'graphiql.css': () => ({ kind: 'file', file: resolve('graphiql/graphiql.css'), type: 'text/css; charset=utf-8' }),
  'explorer.js': () => ({ kind: 'text', text: START_SCRIPT, type: JAVASCRIPT }),
};

export const EXPLORER_ASSET_NAMES = Object.keys(ASSETS);

export const explorerAsset = (name: string): ExplorerAsset | null =>
  Object.hasOwn(ASSETS, name) ? (ASSETS[name] as () => ExplorerAsset)() : null;
