import { createHash } from 'node:crypto';

/** Fixed namespace of the reactor's name-based ids (a random v4 uuid, chosen once). */
const NAMESPACE = Buffer.from('6f1c2a8e4b7d4e0f9a3c5d2e1b0a9c8d', 'hex');

/**
 * RFC 4122 version-5 uuid of `name`: the same name always gives the same id, so an event appended
 * twice (a redelivery, a restart, a second reactor) is recognised by the store as a replay.
 */
export const deterministicId = (name: string): string => {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** `appendTo`'s `newId` for a reaction: hands out exactly these ids, in order. */
export const idSequence = (ids: readonly string[]): (() => string) => {
  let next = 0;
  return () => {
    const id = ids[next++];
    if (id === undefined) throw new Error(`A reaction asked for more than its ${ids.length} event ids`);
    return id;
  };
};
