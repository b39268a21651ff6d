import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';

/**
 * The calendar page (docs/calendar.md): HTML and CSS from here, the browser modules emitted by
 * `npm run build` from apps/api/web/calendar into dist/apps/api/web/calendar. Nothing from elsewhere:
 * the page works offline and its policy allows only this origin.
 */
export const CALENDAR_PATH = '/calendar';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** dist/apps/api/src/calendar -> dist/apps/api/web/calendar (run from the sources, there are no .js files: their names answer 404). */
const MODULE_DIR = fileURLToPath(new URL('../../web/calendar/', import.meta.url));

let modules: ReadonlySet<string> | undefined;

const emittedModules = (): ReadonlySet<string> => {
  if (modules === undefined) {
    try {
      modules = new Set(readdirSync(MODULE_DIR).filter((name) => name.endsWith('.js')));
    } catch {
      modules = new Set(); // not built: the page says it cannot load
    }
  }
  return modules;
};

export type CalendarAsset =
  | { readonly kind: 'text'; readonly text: string; readonly type: string }
  | { readonly kind: 'file'; readonly file: string; readonly type: string };

const JAVASCRIPT = 'text/javascript; charset=utf-8';

export const CALENDAR_CSS = `*, *::before, *::after { box-sizing: border-box; }
:root { --label-width: 14rem; --row-height: 2rem; font-family: system-ui, sans-serif; color: #1d2430; }
body { margin: 0; background: #f6f7f9; }
header.toolbar { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .6rem 1rem; background: #fff; border-bottom: 1px solid #d5d9e0; }
header.toolbar h1 { font-size: 1.1rem; margin: 0 1rem 0 0; }
header.toolbar form, header.toolbar .nav { display: flex; gap: .4rem; align-items: center; margin: 0; }
input[type=number] { width: 4rem; }
#status, #request-status { margin: .4rem 1rem; font-size: .9rem; }
.error { color: #a40e26; font-weight: 600; }
.status-pending { --swatch: #4a74c9; }
.status-starting { --swatch: #62a87c; }
.status-active { --swatch: #1f8a4c; }
.status-terminating { --swatch: #d98c1f; }
.status-terminated { --swatch: #8a919e; }
.status-error { --swatch: #c2283f; }
.status-unknown { --swatch: #b7bdc8; }
.free { --swatch: rgba(255, 196, 0, .35); }
.legend { display: flex; gap: .8rem; margin: .2rem 1rem; font-size: .8rem; list-style: none; padding: 0; }
.legend li::before { content: ''; display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: -.1rem; border-radius: 2px; background: var(--swatch); }
#window-list { margin: .2rem 1rem; padding-left: 1.2rem; font-size: .8rem; max-height: 4.5rem; overflow: auto; columns: 3; }
.calendar { margin: .5rem 1rem; background: #fff; border: 1px solid #d5d9e0; font-size: .85rem; }
.axis { display: flex; border-bottom: 1px solid #d5d9e0; height: 1.6rem; }
.axis .corner { width: var(--label-width); flex: none; padding: .2rem .5rem; font-weight: 600; }
.axis-lane { position: relative; flex: 1; overflow: hidden; }
.tick { position: absolute; top: .2rem; padding-left: .2rem; border-left: 1px solid #c3c9d3; white-space: nowrap; font-size: .75rem; color: #5b6474; }
.rows { position: relative; }
.group-label { padding: .25rem .5rem; background: #eef0f4; font-weight: 600; font-size: .8rem; }
.row { display: flex; height: var(--row-height); border-bottom: 1px solid #eceff3; }
.row .label { width: var(--label-width); flex: none; padding: 0 .5rem; display: flex; flex-direction: column; justify-content: center; overflow: hidden; white-space: nowrap; }
.row .label small { color: #5b6474; font-size: .7rem; }
.lane { position: relative; flex: 1; overflow: hidden; }
.bar { position: absolute; top: .25rem; bottom: .25rem; min-width: 3px; border: 1px solid rgba(0, 0, 0, .25); border-radius: 3px; padding: 0 .3rem; background: var(--swatch); color: #fff; font: inherit; font-size: .75rem; text-align: left; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; cursor: pointer; }
.bar.status-unknown { color: #1d2430; }
.bar:focus-visible { outline: 2px solid #1d2430; outline-offset: 1px; }
.maintenance { position: absolute; top: 0; bottom: 0; background: repeating-linear-gradient(135deg, rgba(91, 100, 116, .28) 0 6px, rgba(91, 100, 116, .08) 6px 12px); border-left: 2px solid #5b6474; border-right: 2px solid #5b6474; }
.overlay { position: absolute; top: 0; bottom: 0; left: var(--label-width); right: 0; pointer-events: none; }
.free-window { position: absolute; top: 0; bottom: 0; background: rgba(255, 196, 0, .25); border-left: 2px dashed #c99a00; border-right: 2px dashed #c99a00; }
.today { position: absolute; top: 0; bottom: 0; width: 0; border-left: 2px solid #c2283f; }
.empty { padding: 1rem; color: #5b6474; }
#details { position: fixed; right: 1rem; bottom: 1rem; width: 22rem; background: #fff; border: 1px solid #d5d9e0; border-radius: 4px; padding: .5rem 1rem; box-shadow: 0 2px 8px rgba(0, 0, 0, .15); font-size: .85rem; }
#details h2 { font-size: 1rem; margin: .3rem 0; }
#details .close { position: absolute; top: .4rem; right: .5rem; }
#details dl { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: 0; }
#details dt { color: #5b6474; }
#details dd { margin: 0; overflow-wrap: anywhere; }
`;

/** The tab's icon: three bars on a grid (without one, the browser asks for /favicon.ico, which is not served). */
const CALENDAR_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="2" fill="#fff" stroke="#5b6474"/><rect x="2" y="3" width="7" height="2.5" fill="#1f8a4c"/><rect x="5" y="7" width="9" height="2.5" fill="#4a74c9"/><rect x="3" y="11" width="5" height="2.5" fill="#d98c1f"/></svg>
`;

const LEGEND = ['pending', 'starting', 'active', 'terminating', 'terminated', 'error']
  .map((status) => `<li class="status-${status}">${status}</li>`)
  .join('');

/** Text safe in a double-quoted HTML attribute. */
const attribute = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * The free-window search the page offers, from the first type that has one (`availability.calendarSearch`):
 * the browser code names no type, so the form carries it, as JSON; without one the form is hidden.
 */
const HOST_SEARCH = RESERVATION_TYPES.flatMap(({ resourceType, availability: { calendarSearch } }) =>
  calendarSearch === null ? [] : [{ resourceType, ...calendarSearch }],
)[0];

const REQUEST_FORM = HOST_SEARCH === undefined ? 'hidden' : `data-search="${attribute(JSON.stringify(HOST_SEARCH))}"`;

export const CALENDAR_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Leasehold calendar</title>
    <link rel="stylesheet" href="${CALENDAR_PATH}/calendar.css">
    <link rel="icon" type="image/svg+xml" href="${CALENDAR_PATH}/calendar.svg">
  </head>
  <body>
    <header class="toolbar">
      <h1>Leasehold calendar</h1>
      <form id="auth-form">
        <label>Token <input id="token" type="password" autocomplete="off" placeholder="X-Auth-Token (none without authentication)"></label>
        <button type="submit">Load</button>
      </form>
      <div class="nav">
        <button id="earlier" type="button" title="Half a view earlier">&#9664;</button>
        <button id="today" type="button">Today</button>
        <button id="later" type="button" title="Half a view later">&#9654;</button>
        <label>Zoom <select id="zoom"></select></label>
      </div>
      <form id="filter-form">
        <label>Resources with <input id="filter" placeholder="rack=r1, gpu=true"></label>
        <button type="submit">Filter</button>
      </form>
      <form id="request-form" ${REQUEST_FORM}>
        <label>Free windows for <input id="request-hosts" type="number" min="1" step="1" value="1"> hosts</label>
        <label>for <input id="request-hours" type="number" min="1" step="1" value="4"> hours</label>
        <button type="submit">Find</button>
        <button id="clear-windows" type="button">Clear</button>
      </form>
    </header>
    <p id="status" role="status">This page needs JavaScript.</p>
    <ul class="legend">${LEGEND}<li class="free">free window</li></ul>
    <p id="request-status" role="status"></p>
    <ul id="window-list"></ul>
    <main id="calendar" class="calendar" hidden></main>
    <aside id="details" hidden></aside>
    <script type="module" src="${CALENDAR_PATH}/calendar.page.js"></script>
  </body>
</html>
`;

/** What an asset name serves: the stylesheet, or an emitted browser module; null for any other name. */
export const calendarAsset = (name: string): CalendarAsset | null => {
  if (name === 'calendar.css') return { kind: 'text', text: CALENDAR_CSS, type: 'text/css; charset=utf-8' };
  if (name === 'calendar.svg') return { kind: 'text', text: CALENDAR_ICON, type: 'image/svg+xml' };
  return emittedModules().has(name) ? { kind: 'file', file: join(MODULE_DIR, name), type: JAVASCRIPT } : null;
};
