import { type Decider, type LeaseCommand, type LeaseEvent, type LeaseState, leaseDeciderWith } from '#domain/index.js';
import { reservationType } from './reservation-types.js';

/** The lease decider the system runs: the domain's, with the rules of every registered reservation type. */
export const leaseDecider: Decider<LeaseState, LeaseCommand, LeaseEvent> = leaseDeciderWith((type) => reservationType(type).rules);
