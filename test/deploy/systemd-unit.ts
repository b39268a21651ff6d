/**
 * Reading deploy/systemd the way systemd does, for the tests that check the units and the one that runs
 * what they run: `Key=value` settings, `Environment=` assignments, an `EnvironmentFile=`, time spans, and
 * the start order that `After=` gives.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/system.js';

export const UNITS = join(ROOT, 'deploy', 'systemd');

export const unitFiles = (): string[] => readdirSync(UNITS).filter((name) => /\.(service|target)$/.test(name));
export const services = (): string[] => unitFiles().filter((name) => name.endsWith('.service'));

/** `Key=value` lines of a unit (comments left out), every value of a key repeated. */
export const settings = (name: string): Map<string, string[]> => {
  const map = new Map<string, string[]>();
  for (const line of readFileSync(join(UNITS, name), 'utf8').split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match === null) continue;
    const [, key = '', value = ''] = match;
    map.set(key, [...(map.get(key) ?? []), value]);
  }
  return map;
};

export const setting = (name: string, key: string): string | undefined => settings(name).get(key)?.at(-1);

const unquote = (word: string): string => word.replace(/^"(.*)"$/s, '$1');

/** `Environment=A=1 "B=two words"`: space-separated assignments, a quoted one may hold spaces; later lines win. */
export const environmentOf = (name: string): Record<string, string> => {
  const words = (settings(name).get('Environment') ?? []).flatMap((line) => line.match(/"[^"]*"|[^\s"]+/g) ?? []);
  return Object.fromEntries(words.map(unquote).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
};

/** An `EnvironmentFile=`: one NAME=value a line, `#` comments and blank lines left out, quotes around a value removed. */
export const parseEnvironmentFile = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim()))
      .filter((match) => match !== null)
      .map(([, key = '', value = '']) => [key, unquote(value)]),
  );

const SPAN_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, sec: 1000, min: 60_000 };

/** A systemd time span such as `30s`, `5min` or `250ms` (a bare number is seconds), in milliseconds. */
export const timeSpanMs = (span: string): number => {
  const match = /^(\d+)\s*(ms|s|sec|min)?$/.exec(span.trim());
  const factor = SPAN_UNITS[match?.[2] ?? 's'];
  if (match === null || factor === undefined) throw new Error(`not a time span this test reads: ${span}`);
  return Number(match[1]) * factor;
};

/** The services in the order systemd starts them: each after every service of the set its `After=` names. */
export const startOrder = (): string[] => {
  const pending = services().sort();
  const ordered: string[] = [];
  while (pending.length > 0) {
    const next = pending.find((unit) =>
      (setting(unit, 'After') ?? '').split(' ').every((other) => !pending.includes(other) || other === unit),
    );
    if (next === undefined) throw new Error(`an ordering cycle among ${pending.join(', ')}`);
    ordered.push(next);
    pending.splice(pending.indexOf(next), 1);
  }
  return ordered;
};
