import type { ApolloServerPlugin } from '@apollo/server';

const EXAMPLE = `query Leases {
  leases(first: 10) {
    edges { node { id name status start_date end_date reservations { id resource_type end_action } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/**
 * A small query page served by this service itself (no CDN, no script from elsewhere): a query, its
 * variables and a token (sent as X-Auth-Token), posted to /graphql; the answer printed below.
 */
export const EXPLORER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Leasehold GraphQL</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; }
textarea, input { font-family: ui-monospace, monospace; font-size: 0.9rem; width: 100%; box-sizing: border-box; }
textarea#query { height: 16rem; }
textarea#variables { height: 4rem; }
pre { background: #f4f4f4; padding: 1rem; overflow: auto; }
</style>
</head>
<body>
<h1>Leasehold GraphQL</h1>
<p>Posts to <code>/graphql</code>; the schema is in <code>docs/schema.graphql</code> and the guide in <code>docs/graphql.md</code>.</p>
<label>X-Auth-Token <input id="token" type="password" autocomplete="off"></label>
<label>Query <textarea id="query">${EXAMPLE}</textarea></label>
<label>Variables (JSON) <textarea id="variables">{}</textarea></label>
<button id="run">Run</button>
<pre id="result"></pre>
<script>
document.getElementById('run').addEventListener('click', async () => {
  const out = document.getElementById('result');
  const headers = { 'Content-Type': 'application/json' };
  const token = document.getElementById('token').value;
  if (token !== '') headers['X-Auth-Token'] = token;
  try {
    const variables = JSON.parse(document.getElementById('variables').value || '{}');
    const response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query: document.getElementById('query').value, variables }) });
    out.textContent = response.status + '\\n' + JSON.stringify(await response.json(), null, 2);
  } catch (error) {
    out.textContent = String(error);
  }
});
</script>
</body>
</html>
`;

/** Apollo's landing page hook: a browser opening /graphql gets the local page instead of Apollo's CDN-loaded one. */
export const localExplorer = (): ApolloServerPlugin => ({
  serverWillStart: async () => ({
    renderLandingPage: async () => ({ html: EXPLORER_HTML }),
  }),
});
