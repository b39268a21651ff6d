import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { DateTime } from 'luxon';
import { freePort } from './system.js';

/** One request a client sent and what Leasehold answered. */
export interface Exchange {
  /** The client command that sent it. */
  readonly command: string;
  readonly method: string;
  readonly path: string;
  /** The raw query string, without `?`; '' when none. */
  readonly query: string;
  readonly body: unknown;
  readonly status: number;
  readonly answer: unknown;
}

/**
 * A request as the contract fixture keeps it: ids a previous answer gave are `{{<exchange index>:<key path>}}`,
 * dates `{{day+<n> HH:MM}}` (UTC, n days from the replay's day), so that the replay sends them against a new system
 * at any date. `reads` are the keys the client reads from the answer (docs: what the fork's managers index).
 */
export interface RecordedRequest {
  readonly command: string;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly body: unknown;
  readonly status: number;
  readonly reads: readonly string[];
}

export interface ExchangeFixture {
  readonly client: string;
  readonly recordedBy: string;
  readonly exchanges: readonly RecordedRequest[];
}

const parseJson = (text: string): unknown => {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });

const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'user-agent', 'x-auth-token'];
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export interface ExchangeRecorder {
  /** Where the client is pointed: it forwards everything to the target. */
  readonly url: string;
  readonly exchanges: readonly Exchange[];
  /** Names the command the next requests belong to. */
  command(name: string): void;
  stop(): Promise<void>;
}

/** A recording proxy in front of `target`: every request and answer, in order, as the client saw them. */
export const startRecorder = async (target: string): Promise<ExchangeRecorder> => {
  const exchanges: Exchange[] = [];
  let command = '';
  const relay = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const text = await readBody(request);
    const headers = Object.fromEntries(
      FORWARDED_REQUEST_HEADERS.flatMap((name) => (typeof request.headers[name] === 'string' ? [[name, request.headers[name]]] : [])),
    );
    const method = request.method ?? 'GET';
    const answer = await fetch(`${target}${request.url ?? '/'}`, { method, headers, body: text.length > 0 ? text : undefined });
    const answerText = await answer.text();
    const [path = '', query = ''] = (request.url ?? '/').split('?', 2);
    exchanges.push({ command, method, path, query, body: parseJson(text), status: answer.status, answer: parseJson(answerText) });
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) response.setHeader(name, value);
    });
    response.writeHead(answer.status).end(answerText);
  };
  const server: Server = createServer((request, response) => {
    relay(request, response).catch((error: unknown) => response.writeHead(502).end(String(error)));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    command: (name) => (command = name),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** `YYYY-MM-DD HH:MM`, `days` after today (UTC), as Blazar's clients send dates. */
export const daysAhead = (days: number, time: string, today: DateTime = DateTime.utc()): string =>
  `${today.startOf('day').plus({ days }).toFormat('yyyy-MM-dd')} ${time}`;

const DAY_PLACEHOLDER = /\{\{day\+(\d+) (\d\d:\d\d)\}\}/g;
const ANSWER_PLACEHOLDER = /\{\{(\d+):([^}]+)\}\}/g;
const UUID_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The value at a dotted key path (`lease.reservations.0.id`), or undefined. */
const valueAt = (value: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined),
      value,
    );

/** The first dotted key path under which `value` holds `wanted`. */
const pathOf = (value: unknown, wanted: string, prefix = ''): string | null => {
  if (value === wanted) return prefix;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const found = pathOf(child, wanted, prefix === '' ? key : `${prefix}.${key}`);
    if (found !== null) return found;
  }
  return null;
};

/** Where an id a request carries came from: the first earlier answer holding it. */
const idPlaceholder = (exchanges: readonly Exchange[], before: number, id: string): string => {
  for (let i = 0; i < before; i++) {
    const path = pathOf(exchanges[i]?.answer, id);
    if (path !== null) return `{{${i}:${path}}}`;
  }
  throw new Error(`exchange ${before} sends ${id}, which no earlier answer gave`);
};

/** The recorded text with ids and the given dates (`literal -> {{day+n HH:MM}}`) replaced by placeholders. */
const generalise = (text: string, exchanges: readonly Exchange[], index: number, dates: ReadonlyMap<string, string>): string => {
  let result = text.replace(UUID_TEXT, (id) => idPlaceholder(exchanges, index, id));
  for (const [literal, placeholder] of dates) result = result.split(literal).join(placeholder);
  return result;
};

/** The exchanges as the contract fixture keeps them, with the keys the client reads from each answer. */
export const toFixture = (
  exchanges: readonly Exchange[],
  dates: ReadonlyMap<string, string>,
  reads: (exchange: Exchange) => readonly string[],
): RecordedRequest[] =>
  exchanges.map((exchange, index) => ({
    command: generalise(exchange.command, exchanges, index, dates),
    method: exchange.method,
    path: generalise(exchange.path, exchanges, index, dates),
    query: exchange.query,
    body: JSON.parse(generalise(JSON.stringify(exchange.body), exchanges, index, dates)),
    status: exchange.status,
    reads: reads(exchange),
  }));

/** A fixture's text with its placeholders filled in: dates from `today`, ids from the answers so far. */
export const resolvePlaceholders = (text: string, answers: readonly unknown[], today: DateTime = DateTime.utc()): string =>
  text
    .replace(DAY_PLACEHOLDER, (_, days: string, time: string) => daysAhead(Number(days), time, today))
    .replace(ANSWER_PLACEHOLDER, (placeholder, index: string, path: string) => {
      const value = valueAt(answers[Number(index)], path);
      if (typeof value !== 'string') throw new Error(`${placeholder}: answer ${index} has no text at ${path}`);
      return value;
    });

/** The key paths (`networks.*.segment_id`, `*` for every element of a list) missing from an answer. */
export const missingKeys = (answer: unknown, paths: readonly string[]): string[] => {
  const present = (value: unknown, keys: readonly string[]): boolean => {
    const [key, ...rest] = keys;
    if (key === undefined) return true;
    if (key === '*') return Array.isArray(value) && value.every((item) => present(item, rest));
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return false;
    return present((value as Record<string, unknown>)[key], rest);
  };
  return paths.filter((path) => !present(answer, path.split('.')));
};
