import { DomainError, literal } from '#domain/index.js';
import type { Window } from './availability.queries.js';

/** How many windows a refusal for lack of capacity offers instead. */
export const COUNTER_OFFERS = 3;

/** `YYYY-MM-DD HH:MM`: how Blazar's requests write a date, so an offer can be sent back as it is. */
export const requestDate = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;

/**
 * A lease write refused for lack of capacity, with the earliest windows of the same duration in which
 * the same request would have been admitted. Same code, kind and message (the first offer appended),
 * so every client that parses Blazar's refusal still does.
 */
export class CapacityRefused extends DomainError {
  constructor(
    refusal: DomainError,
    readonly alternatives: readonly Window[],
  ) {
    const first = alternatives[0];
    // upstream's capacity messages end without a full stop: the offer starts a sentence of its own
    const stop = /[.!?]$/.test(refusal.message) ? '' : '.';
    const offer =
      first === undefined ? '' : `${stop} Earliest alternative: ${requestDate(first.startDate)} to ${requestDate(first.endDate)}.`;
    super(refusal.code, refusal.kind, `${refusal.message}${offer}`, `${refusal.template}${literal(offer)}`);
  }
}
