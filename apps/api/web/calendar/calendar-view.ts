/** Draws the calendar into the page: an axis, a row per resource with its bars, the today line and free windows. */
import {
  type CalendarBar,
  type CalendarRow,
  type MaintenanceBlock,
  endActionOf,
  parseBlazarDate,
  parseRequestDate,
} from './calendar-model.js';
import type { AvailabilityWindow } from './calendar-api.js';
import { ROW_KINDS, ROW_KIND_SPECS } from './calendar-kinds.js';
import { type TimeRange, type ZoomLevel, clip, formatUtc, fractionOf, ticksOf } from './time-scale.js';

export interface CalendarScene {
  readonly rows: readonly CalendarRow[];
  readonly range: TimeRange;
  readonly zoom: ZoomLevel;
  readonly now: number;
  readonly windows: readonly AvailabilityWindow[];
}

const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** Positions a node over [left, right] of a lane (fractions of the range). */
const span = (node: HTMLElement, left: number, right: number): void => {
  node.style.left = `${(left * 100).toFixed(4)}%`;
  node.style.width = `${((right - left) * 100).toFixed(4)}%`;
};

const iso = (instant: number): string => new Date(instant).toISOString();

const axisOf = (scene: CalendarScene): HTMLElement => {
  const axis = element('div', 'axis');
  axis.append(element('div', 'corner', 'Resource'));
  const lane = element('div', 'axis-lane');
  for (const tick of ticksOf(scene.range, scene.zoom)) {
    const mark = element('span', 'tick', tick.label);
    mark.style.left = `${(fractionOf(scene.range, tick.at) * 100).toFixed(4)}%`;
    lane.append(mark);
  }
  axis.append(lane);
  return axis;
};

const capabilitiesOf = (row: CalendarRow): string =>
  Object.entries(row.fields)
    .filter(([key]) => !ROW_KIND_SPECS[row.kind].standardFields.has(key))
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');

const barOf = (bar: CalendarBar, range: TimeRange, onSelect: (bar: CalendarBar) => void): HTMLElement | null => {
  const place = clip(range, bar.start, bar.end);
  if (place === null) return null;
  const status = bar.lease?.status ?? 'UNKNOWN';
  const name = bar.lease?.name ?? bar.leaseId;
  const node = element('button', `bar status-${status.toLowerCase()}`, name);
  node.type = 'button';
  node.title = `${name} (${status}) ${formatUtc(bar.start)} to ${formatUtc(bar.end)} UTC`;
  Object.assign(node.dataset, { leaseId: bar.leaseId, reservationId: bar.reservationId, status, start: iso(bar.start), end: iso(bar.end) });
  span(node, place.left, place.right);
  node.addEventListener('click', () => onSelect(bar));
  return node;
};

/** A maintenance window: behind the bars (a reservation that held the resource before it keeps it). */
const blockOf = (block: MaintenanceBlock, range: TimeRange): HTMLElement | null => {
  const place = clip(range, block.start, block.end);
  if (place === null) return null;
  const node = element('div', 'maintenance');
  node.title = `maintenance: ${block.reason} (${formatUtc(block.start)} to ${formatUtc(block.end)} UTC)`;
  Object.assign(node.dataset, { windowId: block.windowId, start: iso(block.start), end: iso(block.end) });
  span(node, place.left, place.right);
  return node;
};

const rowOf = (row: CalendarRow, range: TimeRange, onSelect: (bar: CalendarBar) => void): HTMLElement => {
  const node = element('div', `row ${row.kind}`);
  Object.assign(node.dataset, { kind: row.kind, id: row.id, name: row.label });
  const label = element('div', 'label', row.label);
  const capabilities = capabilitiesOf(row);
  if (capabilities !== '') label.append(element('small', 'capabilities', capabilities));
  const lane = element('div', 'lane');
  for (const block of row.maintenance) {
    const drawn = blockOf(block, range);
    if (drawn !== null) lane.append(drawn);
  }
  for (const bar of row.bars) {
    const drawn = barOf(bar, range, onSelect);
    if (drawn !== null) lane.append(drawn);
  }
  node.append(label, lane);
  return node;
};

/** The today line and the free windows, over every lane. */
const overlayOf = (scene: CalendarScene): HTMLElement => {
  const overlay = element('div', 'overlay');
  for (const window of scene.windows) {
    const start = parseRequestDate(window.start_date);
    const end = parseRequestDate(window.end_date);
    const place = clip(scene.range, start, end);
    if (place === null) continue;
    const node = element('div', 'free-window');
    Object.assign(node.dataset, { start: iso(start), end: iso(end) });
    node.title = `free: ${window.start_date} to ${window.end_date} UTC`;
    span(node, place.left, place.right);
    overlay.append(node);
  }
  const today = fractionOf(scene.range, scene.now);
  if (today >= 0 && today <= 1) {
    const line = element('div', 'today');
    line.style.left = `${(today * 100).toFixed(4)}%`;
    line.title = `now: ${formatUtc(scene.now)} UTC`;
    overlay.append(line);
  }
  return overlay;
};

const groupOf = (title: string, rows: readonly CalendarRow[], range: TimeRange, onSelect: (bar: CalendarBar) => void): HTMLElement[] =>
  rows.length === 0 ? [] : [element('div', 'group-label', title), ...rows.map((row) => rowOf(row, range, onSelect))];

export const renderCalendar = (container: HTMLElement, scene: CalendarScene, onSelect: (bar: CalendarBar) => void): void => {
  Object.assign(container.dataset, { start: iso(scene.range.start), end: iso(scene.range.end), zoom: scene.zoom.id });
  const body = element('div', 'rows');
  body.append(
    ...ROW_KINDS.flatMap((kind) =>
      groupOf(
        ROW_KIND_SPECS[kind].title,
        scene.rows.filter((row) => row.kind === kind),
        scene.range,
        onSelect,
      ),
    ),
    overlayOf(scene),
  );
  if (scene.rows.length === 0) body.append(element('p', 'empty', 'No resource matches.'));
  container.replaceChildren(axisOf(scene), body);
};

const detail = (list: HTMLElement, term: string, value: string, field: string): void => {
  const description = element('dd', '', value);
  description.dataset.field = field;
  list.append(element('dt', '', term), description);
};

export const renderDetails = (panel: HTMLElement, bar: CalendarBar, resource: string): void => {
  const list = element('dl', 'fields');
  const lease = bar.lease;
  detail(list, 'Lease', lease?.name ?? '(not visible to this token)', 'name');
  detail(list, 'Project', lease?.project_id ?? 'unknown', 'project');
  detail(list, 'Status', lease?.status ?? 'unknown', 'status');
  detail(list, 'Start', `${formatUtc(lease === null ? bar.start : parseBlazarDate(lease.start_date))} UTC`, 'start');
  detail(list, 'End', `${formatUtc(lease === null ? bar.end : parseBlazarDate(lease.end_date))} UTC`, 'end');
  detail(list, 'End action', endActionOf(bar), 'end-action');
  detail(list, 'Resource', resource, 'resource');
  detail(list, 'Lease id', bar.leaseId, 'lease-id');
  const close = element('button', 'close', '\u00d7');
  close.type = 'button';
  close.title = 'Close';
  close.addEventListener('click', () => {
    panel.hidden = true;
  });
  panel.replaceChildren(element('h2', '', 'Lease'), close, list);
  panel.dataset.leaseId = bar.leaseId;
  panel.hidden = false;
};

export const renderWindowList = (list: HTMLElement, windows: readonly AvailabilityWindow[]): void => {
  list.replaceChildren(
    ...windows.map((window) => {
      const counts = window.reservations.map((reservation) => `${reservation.free} of ${reservation.matching} free`).join(', ');
      return element('li', '', `${window.start_date} to ${window.end_date} UTC (${counts})`);
    }),
  );
};
