import { describe, expect, it } from 'vitest';
import { LeadershipUnavailableError, takeLeadership } from './leadership.js';

describe('reactor leadership', () => {
  it('is held at once with the embedded store, where one machine runs one reactor', async () => {
    const leadership = await takeLeadership({ role: 'reactor', eventStoreUrl: '' });
    await expect(leadership.release()).resolves.toBeUndefined();
  });

  it.each(['kurrentdb://127.0.0.1:2113?tls=false', 'esdb+discover://cluster:2113'])('is refused on KurrentDB (%s), where nothing elects one reactor yet', async (eventStoreUrl) => {
    const taking = takeLeadership({ role: 'reactor', eventStoreUrl });
    await expect(taking).rejects.toBeInstanceOf(LeadershipUnavailableError);
    await expect(taking).rejects.toThrow('the reactor cannot lead on a KurrentDB event store: no leader election is built for it yet');
  });
});
