import type { DomainError } from '#domain/index.js';
import { renderMessage } from '#domain/index.js';
import { RESERVATION_FIELDS } from '#plugins/reservation-fields.js';

/** Blazar's names of the fields the domain names in its messages (`{field:memoryMb}` -> `memory_mb`): every type's, and the type's own. */
export const WIRE_NAMES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(RESERVATION_FIELDS.map(({ field, name }) => [field, name])),
  resourceType: 'resource_type',
};

/** A domain error's message in Blazar's words: its fields by their wire names. */
export const wireMessage = (error: DomainError): string => renderMessage(error.template, (name) => WIRE_NAMES[name] ?? name);
