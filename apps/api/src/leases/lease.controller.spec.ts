import 'reflect-metadata';
import type { Request, Response } from '../http/exchange.js';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule, type QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/index.js';
import { CommandHandler } from '#application/command-handler.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { hostRegistered } from '#application/testing/calendars.fixture.js';
import { DEFAULT_SETTINGS, testCaller } from '#application/testing/application.specification.js';
import { appendGiven } from '#application/testing/given-events.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import type { ContextCarrier } from '../http/request-context.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { LeaseController } from './lease.controller.js';
import { CreateLeaseHandler, UpdateLeaseHandler } from './lease.handlers.js';

const HOST = { resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' };

/** A wall clock read once per call, as a loaded API reads it: each reading a little later than the last. */
const clockReading = (...instants: readonly string[]): (() => Date) => {
  const left = [...instants];
  return () => new Date(left.length > 1 ? (left.shift() as string) : (left[0] as string));
};

const request = (): Request =>
  ({ leasehold: { requestId: 'req-1', globalRequestId: null, caller: testCaller('member') } }) as ContextCarrier as Request;

const response = (): Response => ({ header: () => undefined }) as unknown as Response;

/** The API's CommandBus with the lease writes' handlers over `leases`. */
const commandBusOver = (leases: LeaseUseCases): Promise<INestApplicationContext> => {
  @Module({
    imports: [CqrsModule.forRoot()],
    providers: [{ provide: LeaseUseCases, useValue: leases }, CreateLeaseHandler, UpdateLeaseHandler],
  })
  class LeaseWrites {}
  return NestFactory.createApplicationContext(LeaseWrites, { logger: false, abortOnError: false });
};

/**
 * The REST controller over the real use cases and an in-memory SQLite log: what a request's `now`
 * means does not depend on how long the request took before it was decided.
 */
describe('LeaseController and a start of `now`', () => {
  let store: SqliteEventStore | undefined;
  let bus: INestApplicationContext | undefined;

  afterEach(async () => {
    await bus?.close();
    await store?.close();
    store = undefined;
    bus = undefined;
  });

  const controller = async (clock: () => Date): Promise<LeaseController> => {
    store = SqliteEventStore.open({ file: ':memory:' });
    await appendGiven(store, [hostRegistered('1')]);
    let ids = 0;
    const leases = new LeaseUseCases({
      handler: new CommandHandler(store),
      index: new WriteIndex(store),
      settings: DEFAULT_SETTINGS,
      newId: () => `id-${++ids}`,
    });
    bus = await commandBusOver(leases);
    return new LeaseController(
      bus.get(CommandBus),
      undefined as unknown as QueryBus,
      new ReadYourWrites(undefined as never, store, 0),
      clock,
    );
  };

  it('Given a request that crosses a minute boundary, When it creates a lease starting now, Then the lease starts in the minute it was read in (not START_IN_PAST)', async () => {
    const leases = await controller(clockReading('2030-06-08T12:00:59.999Z', '2030-06-08T12:01:00.001Z'));
    const body = { name: 'now-lease', start_date: 'now', end_date: '2030-06-08 14:00', reservations: [HOST], events: [] };

    const { lease } = await leases.create(body, request(), response());

    expect(lease.start_date).toMatch(/^2030-06-08T12:00:00/);
    expect(lease.status).toBe('PENDING');
  });

  it('Given a pending lease, When an update that crosses a minute boundary moves its start to now, Then the start is that minute', async () => {
    const leases = await controller(clockReading('2030-06-08T11:00:00.000Z', '2030-06-08T12:00:59.999Z', '2030-06-08T12:01:00.001Z'));
    const created = await leases.create(
      { name: 'later', start_date: '2030-06-08 13:00', end_date: '2030-06-08 14:00', reservations: [HOST], events: [] },
      request(),
      response(),
    );

    const { lease } = await leases.update(created.lease.id, { start_date: 'now' }, request(), response());

    expect(lease.start_date).toMatch(/^2030-06-08T12:00:00/);
  });
});
