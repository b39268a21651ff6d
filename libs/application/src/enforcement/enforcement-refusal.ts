import { DomainError } from '#domain/index.js';
import type { FilterName } from './enforcement.config.js';

/** A filter's 403: its code names the filter (ENFORCEMENT_MAX_LEASE_DURATION, ...), its message says why. */
export const refused = (filter: FilterName, message: string): DomainError =>
  new DomainError(`ENFORCEMENT_${filter.toUpperCase()}`, 'forbidden', message);
