import type { WireField } from './reservation-wire.js';
import { RESERVATION_TYPES } from './reservation-types.js';

const sameField = (a: WireField, b: WireField): boolean => a.name === b.name && a.field === b.field && a.kind === b.kind;

/**
 * Every registered type's fields, each once (as the first type that has it declares it), in the registry's order: the order a
 * change's fields are judged in and the transports list them in. Types that share a field (`amount`) share its name, domain name and
 * kind, so that one wire name means one thing whatever the type.
 */
export const RESERVATION_FIELDS: readonly WireField[] = RESERVATION_TYPES.flatMap((module) => module.wire.fields).reduce<WireField[]>(
  (fields, field) => {
    const known = fields.find((other) => other.name === field.name || other.field === field.field);
    if (known === undefined) return [...fields, field];
    if (!sameField(known, field)) throw new Error(`Reservation field ${field.name} (${field.field}) is declared twice, differently`);
    return fields;
  },
  [],
);
