import { WrongExpectedRevisionError } from '../../../../libs/event-store/src/event-store.port.js';
import { conflict } from '../../../../libs/domain/src/index.js';

const MAX_ATTEMPTS = 20;

/**
 * Load-decide-append with optimistic concurrency: a revision conflict means someone else wrote to a
 * stream we decided on, so decide again on fresh state.
 */
export const retryOnConflict = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (i >= MAX_ATTEMPTS) throw conflict('CONCURRENT_UPDATE', 'Too many concurrent changes to the same resources; retry the request');
    }
  }
};
