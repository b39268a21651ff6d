import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invalid } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { CommandHandler } from '../command-handler.js';
import { commandMetadata, testCaller } from '../testing/application.specification.js';
import { WebhookSecrets } from './webhook-secrets.store.js';
import { type CheckTarget, type NewWebhook, WebhookUseCases } from './webhook.use-cases.js';

/** The use cases on a real (in-memory SQLite) log and secret store; the target check is the operator's, given here as a function. */
const NOW = '2026-11-26T01:00:00.000Z';
const hook: NewWebhook = { url: 'https://hooks.example.com/a', eventTypes: ['lease.created'], secret: 'secret-0123456789abcdef' };
const memberA = testCaller('member', 'project-a');
const readerA = testCaller('reader', 'project-a');
const memberB = testCaller('member', 'project-b');
const admin = testCaller('admin', 'project-admin');

describe('WebhookUseCases', () => {
  let store: SqliteEventStore;
  let secrets: WebhookSecrets;
  let refuseTargets = false;
  const build = (enabled = true, maxPerProject = 25): WebhookUseCases => {
    let ids = 0;
    const checkTarget: CheckTarget = async () => {
      if (refuseTargets) throw invalid('WEBHOOK_TARGET_REFUSED', 'Malformed parameter url (not an allowed webhook target)');
    };
    return new WebhookUseCases({
      handler: new CommandHandler(store),
      store,
      secrets,
      deliveries: () => null,
      checkTarget,
      newId: () => `id-${++ids}`,
      enabled,
      maxPerProject,
    });
  };
  const register = (app: WebhookUseCases, actor = memberA) =>
    app.register({ type: 'RegisterWebhook', data: { webhook: hook }, metadata: commandMetadata(actor, NOW) });
  const remove = (app: WebhookUseCases, webhookId: string, actor = memberA) =>
    app.remove({ type: 'DeleteWebhook', data: { webhookId }, metadata: commandMetadata(actor, NOW) });
  const log = async () => (await store.readAll({ from: 0 })).map(({ streamId, type, data }) => ({ streamId, type, data }));

  beforeEach(() => {
    store = SqliteEventStore.open({ file: ':memory:' });
    secrets = WebhookSecrets.open(':memory:');
    refuseTargets = false;
  });

  afterEach(async () => {
    secrets.close();
    await store.close();
  });

  it('registers in the log without the secret, which goes to the secret store', async () => {
    const app = build();
    const { webhook } = await register(app);
    expect(webhook).toEqual({
      id: 'id-1',
      project_id: 'project-a',
      user_id: memberA.userId,
      url: hook.url,
      event_types: ['lease.created'],
      created_at: NOW,
    });
    expect(await log()).toEqual([
      {
        streamId: 'webhook-id-1',
        type: 'Webhook.Registered',
        data: {
          webhookId: 'id-1',
          projectId: 'project-a',
          userId: memberA.userId,
          url: hook.url,
          eventTypes: ['lease.created'],
          registeredAt: NOW,
        },
      },
    ]);
    expect(JSON.stringify(await store.readAll({ from: 0 }))).not.toContain(hook.secret);
    expect(secrets.get('id-1')).toBe(hook.secret);
  });

  it('refuses a reader (403) and writes nothing', async () => {
    await expect(register(build(), readerA)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    expect(await log()).toEqual([]);
    expect(secrets.get('id-1')).toBeNull();
  });

  it('refuses while webhooks are off, and a target the operator refuses, writing nothing and keeping no secret', async () => {
    await expect(register(build(false))).rejects.toMatchObject({ code: 'WEBHOOKS_DISABLED', kind: 'invalid' });
    refuseTargets = true;
    await expect(register(build())).rejects.toMatchObject({ code: 'WEBHOOK_TARGET_REFUSED' });
    expect(await log()).toEqual([]);
    expect(secrets.get('id-1')).toBeNull();
  });

  it("lists a member's project's webhooks, every project's for an admin; shows another project's to none but admins", async () => {
    const app = build();
    const a = (await register(app, memberA)).webhook.id;
    const b = (await register(app, memberB)).webhook.id;
    expect((await app.list(readerA)).map((w) => w.id)).toEqual([a]);
    expect((await app.list(admin)).map((w) => w.id)).toEqual([a, b]);
    await expect(app.show(memberA, b)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(app.deliveries(memberA, b, 10)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    expect((await app.show(admin, b)).project_id).toBe('project-b');
    expect(await app.deliveries(readerA, a, 10)).toEqual([]);
  });

  it('deletes: an event in the log, the secret erased, then 404; another project cannot', async () => {
    const app = build();
    const { webhook } = await register(app);
    await expect(remove(app, webhook.id, memberB)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    expect(secrets.get(webhook.id)).toBe(hook.secret);
    await remove(app, webhook.id);
    expect((await log()).at(-1)).toEqual({
      streamId: `webhook-${webhook.id}`,
      type: 'Webhook.Deleted',
      data: { webhookId: webhook.id, projectId: 'project-a', deletedAt: NOW },
    });
    expect(secrets.get(webhook.id)).toBeNull();
    await expect(app.show(memberA, webhook.id)).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND', kind: 'not_found' });
    await expect(remove(app, webhook.id)).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    expect(await app.list(admin)).toEqual([]);
  });

  it("refuses a project's webhook past LEASEHOLD_WEBHOOK_MAX_PER_PROJECT (403), writing nothing; another project and a deletion make room", async () => {
    const app = build(true, 3);
    const mine = [];
    for (let n = 0; n < 3; n++) mine.push((await register(app, memberA)).webhook.id);
    const before = await log();
    await expect(register(app, memberA)).rejects.toMatchObject({
      code: 'WEBHOOK_LIMIT_REACHED',
      kind: 'forbidden',
      message:
        'Project project-a has 3 webhooks, the most it may register (LEASEHOLD_WEBHOOK_MAX_PER_PROJECT); delete one to register another',
    });
    expect(await log()).toEqual(before);
    expect(secrets.get('id-4')).toBeNull();
    expect((await register(app, memberB)).webhook.project_id).toBe('project-b');
    await remove(app, mine[0] ?? '');
    expect((await register(app, memberA)).webhook.project_id).toBe('project-a');
    expect((await app.list(memberA)).length).toBe(3);
  });

  it('counts the registrations decided at once: of ten concurrent ones over a limit of 3, three are written', async () => {
    const app = build(true, 3);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => register(app, memberA)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect((await log()).filter((e) => e.type === 'Webhook.Registered')).toHaveLength(3);
  });
});
