import { describe, expect, it } from 'vitest';
import { webhookConfigFromEnv } from './webhook.config.js';

describe('webhookConfigFromEnv: the per-project limits', () => {
  it('defaults to 25 webhooks and 4 of the 16 sending slots per project', () => {
    expect(webhookConfigFromEnv({})).toMatchObject({ concurrency: 16, projectConcurrency: 4, maxPerProject: 25 });
  });

  it("a project's share is never more than all the slots", () => {
    expect(webhookConfigFromEnv({ LEASEHOLD_WEBHOOK_CONCURRENCY: '2' })).toMatchObject({ concurrency: 2, projectConcurrency: 2 });
    expect(
      webhookConfigFromEnv({
        LEASEHOLD_WEBHOOK_CONCURRENCY: '32',
        LEASEHOLD_WEBHOOK_PROJECT_CONCURRENCY: '8',
        LEASEHOLD_WEBHOOK_MAX_PER_PROJECT: '3',
      }),
    ).toMatchObject({ concurrency: 32, projectConcurrency: 8, maxPerProject: 3 });
  });

  it.each([
    ['LEASEHOLD_WEBHOOK_MAX_PER_PROJECT', '0'],
    ['LEASEHOLD_WEBHOOK_MAX_PER_PROJECT', '2.5'],
    ['LEASEHOLD_WEBHOOK_PROJECT_CONCURRENCY', '-1'],
    ['LEASEHOLD_WEBHOOK_PROJECT_CONCURRENCY', 'four'],
    ['LEASEHOLD_WEBHOOK_CONCURRENCY', '0.5'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => webhookConfigFromEnv({ [name]: value })).toThrow(new RegExp(`${name} must be a positive whole number, got '${value}'`));
  });
});
