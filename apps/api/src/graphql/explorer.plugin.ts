import type { ApolloServerPlugin } from '@apollo/server';

/** The scripts, in the order they must run: React, then GraphiQL (which expects it global), then ours. */
const SCRIPTS = ['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js', 'explorer.js'];

/** GraphiQL, every file from this service (`GET /graphql-explorer/{asset}`); no CDN. */
export const EXPLORER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Leasehold GraphQL</title>
<link rel="stylesheet" href="/graphql-explorer/graphiql.css">
<style>body { margin: 0; } #graphiql { height: 100vh; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL...</div>
${SCRIPTS.map((name) => `<script src="/graphql-explorer/${name}"></script>`).join('\n')}
</body>
</html>
`;

/** Apollo's landing page hook: a browser opening /graphql gets GraphiQL from this service instead of Apollo's CDN-loaded page. */
export const localExplorer = (): ApolloServerPlugin => ({
  serverWillStart: async () => ({
    renderLandingPage: async () => ({ html: EXPLORER_HTML }),
  }),
});
