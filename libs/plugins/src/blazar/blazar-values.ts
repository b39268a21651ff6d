import { DateTime } from 'luxon';

/** One row of Blazar's database as the driver returns it: column name to value (booleans and dates as each driver gives them). */
export type BlazarRow = Readonly<Record<string, unknown>>;

/** A value of a row the import cannot read (a NOT NULL column left null, a date that is not one). */
export class BlazarValueError extends Error {
  override readonly name = 'BlazarValueError';
}

const valueOf = (row: BlazarRow, column: string): unknown => row[column] ?? null;

/** A driver's scalar as text (a Buffer or an object, which no Blazar column holds, as JSON). */
const textOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean'
      ? `${value}`
      : JSON.stringify(value);

export const textOrNull = (row: BlazarRow, column: string): string | null => {
  const value = valueOf(row, column);
  return value === null ? null : textOf(value);
};

export const text = (row: BlazarRow, column: string): string => {
  const value = textOrNull(row, column);
  if (value === null) throw new BlazarValueError(`${column} is null`);
  return value;
};

export const integerOrNull = (row: BlazarRow, column: string): number | null => {
  const value = valueOf(row, column);
  if (value === null) return null;
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new BlazarValueError(`${column} is not a whole number: ${textOf(value)}`);
  return number;
};

export const integer = (row: BlazarRow, column: string): number => {
  const value = integerOrNull(row, column);
  if (value === null) throw new BlazarValueError(`${column} is null`);
  return value;
};

/** SQLite and MySQL give 0/1, PostgreSQL a boolean. */
export const booleanOrNull = (row: BlazarRow, column: string): boolean | null => {
  const value = valueOf(row, column);
  if (value === null) return null;
  if (typeof value === 'boolean') return value;
  return Number(value) !== 0;
};

export const flag = (row: BlazarRow, column: string): boolean => booleanOrNull(row, column) ?? false;

/**
 * Blazar's DateTime columns hold naive UTC (`2026-11-23 02:14:00.000000` as SQLAlchemy writes them);
 * the store keeps `Date.prototype.toISOString()` text. Microseconds are cut to milliseconds.
 */
export const instantOrNull = (row: BlazarRow, column: string): string | null => {
  const value = valueOf(row, column);
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString();
  const raw = textOf(value);
  const parsed = DateTime.fromSQL(raw, { zone: 'utc' });
  const time = parsed.isValid ? parsed : DateTime.fromISO(raw, { zone: 'utc' });
  if (!time.isValid) throw new BlazarValueError(`${column} is not a date: ${raw}`);
  return time.toUTC().toISO({ suppressMilliseconds: false, includeOffset: false }) + 'Z';
};

export const instant = (row: BlazarRow, column: string): string => {
  const value = instantOrNull(row, column);
  if (value === null) throw new BlazarValueError(`${column} is null`);
  return value;
};

/** Rows grouped by one column's text (rows whose column is null are left out). */
export const groupBy = (rows: readonly BlazarRow[], column: string): ReadonlyMap<string, readonly BlazarRow[]> => {
  const groups = new Map<string, BlazarRow[]>();
  for (const row of rows) {
    const key = textOrNull(row, column);
    if (key === null) continue;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [row]);
    else group.push(row);
  }
  return groups;
};
