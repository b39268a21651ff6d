/** The calendar page's entry module: its state, the controls, and when to load and redraw. */
import { ApiError, type AvailabilityRequest, type AvailabilityWindow, CalendarApi } from './calendar-api.js';
import {
  type CalendarBar,
  type CalendarData,
  type CalendarRow,
  type FilterTerm,
  buildRows,
  endedLeasesIn,
  matchesFilter,
  parseFilter,
  resourcePropertiesOf,
  withBookings,
} from './calendar-model.js';
import { renderCalendar, renderDetails, renderWindowList } from './calendar-view.js';
import { ROW_KINDS, ROW_KIND_SPECS } from './calendar-kinds.js';
import {
  DEFAULT_ZOOM,
  type TimeRange,
  ZOOM_LEVELS,
  type ZoomLevel,
  formatUtc,
  rangeAround,
  shifted,
  zoomLevel,
  zoomedTo,
} from './time-scale.js';

const TOKEN_KEY = 'leasehold-calendar-token';
const MINUTE = 60_000;
/** The most windows POST /v1/availability answers at once. */
const WINDOW_LIMIT = 50;
/** Ended leases' bookings cost a call per kind each: at most this many are fetched for one view. */
const ENDED_PER_VIEW = 20;

const byId = <T extends HTMLElement>(id: string, type: new () => T): T => {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return node;
};

const page = {
  calendar: byId('calendar', HTMLElement),
  status: byId('status', HTMLElement),
  details: byId('details', HTMLElement),
  token: byId('token', HTMLInputElement),
  authForm: byId('auth-form', HTMLFormElement),
  zoom: byId('zoom', HTMLSelectElement),
  earlier: byId('earlier', HTMLButtonElement),
  today: byId('today', HTMLButtonElement),
  later: byId('later', HTMLButtonElement),
  filter: byId('filter', HTMLInputElement),
  filterForm: byId('filter-form', HTMLFormElement),
  requestForm: byId('request-form', HTMLFormElement),
  requestHosts: byId('request-hosts', HTMLInputElement),
  requestHours: byId('request-hours', HTMLInputElement),
  clearWindows: byId('clear-windows', HTMLButtonElement),
  requestStatus: byId('request-status', HTMLElement),
  windowList: byId('window-list', HTMLElement),
};

/**
 * The free-window search the server puts on the form (apps/api/src/calendar/calendar-page.ts): one reservation,
 * as POST /v1/availability reads it, of the type that offers it, for N hosts matching the filter.
 */
interface HostSearch {
  readonly resourceType: string;
  /** Fields set to N. */
  readonly countFields: readonly string[];
  /** The field set to the filter's Blazar query. */
  readonly filterField: string;
  /** Fields sent as they are. */
  readonly fixedFields: Readonly<Record<string, string>>;
}

/** Null: the server offers none (the form is hidden). */
const hostSearchOf = (form: HTMLFormElement): HostSearch | null => {
  const data = form.dataset.search;
  return data === undefined ? null : (JSON.parse(data) as HostSearch);
};

interface PageState {
  data: CalendarData | null;
  /** When `data` was read: leases that ended before it are missing from the unfiltered allocation lists. */
  loadedAt: number;
  /** Ended leases whose bookings were fetched (or are being fetched). */
  ended: Set<string>;
  rows: readonly CalendarRow[] | null;
  zoom: ZoomLevel;
  range: TimeRange;
  filter: readonly FilterTerm[];
  windows: readonly AvailabilityWindow[];
}

const state: PageState = {
  data: null,
  loadedAt: 0,
  ended: new Set(),
  rows: null,
  zoom: zoomLevel(DEFAULT_ZOOM),
  range: rangeAround(Date.now(), zoomLevel(DEFAULT_ZOOM)),
  filter: [],
  windows: [],
};
const api = new CalendarApi(() => page.token.value.trim());

const say = (node: HTMLElement, text: string, failed = false): void => {
  node.textContent = text;
  node.classList.toggle('error', failed);
};

const reasonOf = (error: unknown): string => {
  if (error instanceof ApiError && error.status === 401) return `${error.message} Enter a token (X-Auth-Token) above.`;
  return error instanceof Error ? error.message : String(error);
};

const showLease = (bar: CalendarBar): void => {
  const row = state.rows?.find((candidate) => candidate.bars.includes(bar));
  renderDetails(page.details, bar, row === undefined ? 'unknown' : `${ROW_KIND_SPECS[row.kind].noun} ${row.label}`);
};

const draw = (): void => {
  if (state.rows === null) return;
  const rows = state.rows.filter((row) => matchesFilter(row, state.filter));
  renderCalendar(page.calendar, { rows, range: state.range, zoom: state.zoom, now: Date.now(), windows: state.windows }, showLease);
};

const setData = (data: CalendarData): void => {
  state.data = data;
  state.rows = buildRows(data);
};

const loadedSummary = (skipped: number): string => {
  const rows = state.rows ?? [];
  const counts = ROW_KINDS.map((kind) => `${rows.filter((row) => row.kind === kind).length} ${ROW_KIND_SPECS[kind].plural}`);
  const more = skipped > 0 ? ` ${skipped} more ended leases in view are not drawn.` : '';
  return `${counts.slice(0, -1).join(', ')} and ${counts.at(-1) ?? ''}, loaded at ${formatUtc(state.loadedAt)} UTC.${more}`;
};

/** Draws the bookings of leases that ended within the view, fetched lease by lease (the latest first, a few per view). */
const fillEnded = async (): Promise<void> => {
  if (state.data === null) return;
  const due = endedLeasesIn(state.data.leases, state.range.start, state.range.end, state.loadedAt).filter(
    (lease) => !state.ended.has(lease.id),
  );
  const batch = due.slice(0, ENDED_PER_VIEW);
  for (const lease of batch) state.ended.add(lease.id);
  say(page.status, loadedSummary(due.length - batch.length));
  if (batch.length === 0) return;
  try {
    const bookings = await Promise.all(batch.map((lease) => api.leaseAllocations(lease.id)));
    if (state.data === null) return;
    setData(bookings.reduce(withBookings, state.data));
    draw();
  } catch (error) {
    say(page.status, reasonOf(error), true);
  }
};

const load = async (): Promise<void> => {
  say(page.status, 'Loading...');
  try {
    const data = await api.loadCalendar();
    // after the answer, not before: a lease ending meanwhile is then in the answer or fetched by id (never twice)
    state.loadedAt = Date.now();
    setData(data);
    state.ended.clear();
    page.calendar.hidden = false;
    draw();
    await fillEnded();
  } catch (error) {
    state.data = null;
    state.rows = null;
    page.calendar.hidden = true;
    page.calendar.replaceChildren();
    say(page.status, reasonOf(error), true);
  }
};

const moveTo = (range: TimeRange): void => {
  state.range = range;
  draw();
  void fillEnded();
};

/** The availability request for the current filter and view: from the view's start (or now, if it has begun) to its end. */
const availabilityRequest = (search: HostSearch, hosts: number, hours: number): AvailabilityRequest => {
  const start = Math.ceil(state.range.start / MINUTE) * MINUTE;
  return {
    reservations: [
      {
        resource_type: search.resourceType,
        ...Object.fromEntries(search.countFields.map((field) => [field, hosts])),
        ...search.fixedFields,
        [search.filterField]: resourcePropertiesOf(state.filter),
      },
    ],
    duration: hours * 60,
    not_before: start > Date.now() ? formatUtc(start) : 'now',
    not_after: formatUtc(state.range.end),
    limit: WINDOW_LIMIT,
  };
};

const findWindows = async (search: HostSearch): Promise<void> => {
  const hosts = page.requestHosts.valueAsNumber;
  const hours = page.requestHours.valueAsNumber;
  if (!Number.isInteger(hosts) || hosts < 1 || !Number.isInteger(hours) || hours < 1) {
    say(page.requestStatus, 'Hosts and hours are whole numbers from 1.', true);
    return;
  }
  say(page.requestStatus, 'Searching...');
  try {
    state.windows = await api.availability(availabilityRequest(search, hosts, hours));
    say(page.requestStatus, `${state.windows.length} free windows of ${hours} h for ${hosts} hosts in view, earliest first.`);
  } catch (error) {
    state.windows = [];
    say(page.requestStatus, reasonOf(error), true);
  }
  renderWindowList(page.windowList, state.windows);
  draw();
};

const clearWindows = (): void => {
  state.windows = [];
  say(page.requestStatus, '');
  renderWindowList(page.windowList, state.windows);
  draw();
};

const applyFilter = (): void => {
  const parsed = parseFilter(page.filter.value);
  if (!parsed.ok) {
    say(page.status, `Filter: ${parsed.problem}.`, true);
    return;
  }
  state.filter = parsed.terms;
  page.calendar.dataset.filter = page.filter.value.trim();
  // windows were found for the previous filter's hosts
  clearWindows();
};

const submitted = (form: HTMLFormElement, action: () => void | Promise<void>): void => {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void action();
  });
};

const start = (): void => {
  page.zoom.replaceChildren(...ZOOM_LEVELS.map((level) => new Option(level.label, level.id, false, level.id === state.zoom.id)));
  page.token.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
  submitted(page.authForm, () => {
    sessionStorage.setItem(TOKEN_KEY, page.token.value.trim());
    return load();
  });
  submitted(page.filterForm, applyFilter);
  const search = hostSearchOf(page.requestForm);
  if (search !== null) submitted(page.requestForm, () => findWindows(search));
  page.clearWindows.addEventListener('click', clearWindows);
  page.zoom.addEventListener('change', () => {
    state.zoom = zoomLevel(page.zoom.value);
    moveTo(zoomedTo(state.range, state.zoom));
  });
  page.earlier.addEventListener('click', () => moveTo(shifted(state.range, -1)));
  page.later.addEventListener('click', () => moveTo(shifted(state.range, 1)));
  page.today.addEventListener('click', () => moveTo(rangeAround(Date.now(), state.zoom)));
  // the today line moves
  setInterval(draw, MINUTE);
  void load();
};

start();
