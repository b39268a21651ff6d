import { Type } from '@mikro-orm/core';
import { decodeStoredText, encodeStoredText } from '#event-store/stored-text.js';

/**
 * A text column that reads back any JavaScript string exactly, on SQLite and PostgreSQL: NUL, lone
 * surrogates and the escape character are stored as escape sequences (stored-text.ts), everything
 * else as is, so ordinary values keep their bytes, order and index entries. MikroORM converts query
 * values with the same function, so `where` conditions on these columns match. Unbounded `text`,
 * not varchar(255): a long value must not fail an insert on PostgreSQL.
 */
export class SafeTextType extends Type<string | null | undefined, string | null | undefined> {
  override convertToDatabaseValue(value: string | null | undefined): string | null | undefined {
    return typeof value === 'string' ? encodeStoredText(value) : value;
  }

  override convertToJSValue(value: string | null | undefined): string | null | undefined {
    return typeof value === 'string' ? decodeStoredText(value) : value;
  }

  override getColumnType(): string {
    return 'text';
  }

  override compareAsType(): string {
    return 'string';
  }

  override get runtimeType(): string {
    return 'string';
  }

  /** Decoding then encoding a stored value gives it back, so hydration need not do it to compare. */
  override ensureComparable(): boolean {
    return false;
  }
}
