import { PersistentMap } from '#domain/index.js';

/**
 * JSON for folded states: the deciders' states hold Maps and Sets (registries by name, flavors by id),
 * which plain JSON would turn into empty objects. A PersistentMap is written as a Map is and read back
 * as a Map (the state that holds it turns it back at its next evolve): snapshots keep one format.
 */
const replacer = (_key: string, value: unknown): unknown => {
  if (value instanceof Map) return { $map: [...(value as Map<unknown, unknown>).entries()] };
  if (value instanceof PersistentMap) return { $map: [...(value as PersistentMap<unknown>).entries()] };
  if (value instanceof Set) return { $set: [...(value as Set<unknown>).values()] };
  return value;
};

const reviver = (_key: string, value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  if ('$map' in value && Array.isArray(value.$map)) return new Map(value.$map as [unknown, unknown][]);
  if ('$set' in value && Array.isArray(value.$set)) return new Set(value.$set as unknown[]);
  return value;
};

export const encodeState = (state: unknown): string => JSON.stringify(state, replacer);

export const decodeState = (text: string): unknown => JSON.parse(text, reviver) as unknown;
