import type { Command, DomainEvent } from '#domain/index.js';
import { networkSegments } from './network/network.kind.js';
import type { CalendarBooking, EventDescriptions, FeedTie, ResourceKind } from './resource-kind.js';

/** Every exclusive resource kind generic code walks (hosts and floating IPs are still listed by hand). The one list to extend. */
const KINDS = [networkSegments] as const;

type Registered = (typeof KINDS)[number];

type EventsOf<M> =
  M extends ResourceKind<infer _K, infer _S, infer _C, infer E, infer _B, infer _P, infer X, infer _Subject> ? E | X : never;

/** Every event a registered kind appends (its resources', its registry's and its properties'). */
export type ResourceKindEvent = EventsOf<Registered>;

/** A registered kind's name, as calendars and lh_availability.resourceKind name it. */
export type ResourceKindName = Registered['kind'];

/** The subjects outbound channels key the kinds' events by. */
export type ResourceKindSubject = Registered['subjects'][number]['subject'];

/** A kind as generic code handles it: any state, command and event (each member only ever gets its own kind's). */
export type AnyResourceKind = ResourceKind<
  ResourceKindName,
  unknown,
  Command,
  DomainEvent,
  CalendarBooking,
  unknown,
  DomainEvent,
  ResourceKindSubject
>;

/**
 * The registered kinds as generic code walks them. The one widening: each kind's members take its own states, commands
 * and events, which TypeScript cannot pair through a union; generic code hands a kind only what its streams hold.
 */
export const RESOURCE_KINDS: readonly AnyResourceKind[] = KINDS.map((kind) => kind as unknown as AnyResourceKind);

const BY_NAME: ReadonlyMap<string, AnyResourceKind> = new Map(RESOURCE_KINDS.map((kind) => [kind.kind, kind]));

/** The kind of a registered name (a calendar's, a booked resource's). */
export const resourceKind = (name: ResourceKindName): AnyResourceKind => {
  const kind = BY_NAME.get(name);
  if (kind === undefined) throw new Error(`No resource kind ${name}`);
  return kind;
};

/** Every kind's public events, for the event catalogue. */
export const RESOURCE_KIND_EVENTS = Object.assign({}, ...KINDS.map((kind) => kind.events)) as EventDescriptions<ResourceKindEvent>;

/** What ties each kind's events to a project, for the feed. */
export const RESOURCE_KIND_TIES = Object.assign({}, ...KINDS.map((kind) => kind.ties)) as {
  readonly [T in ResourceKindEvent['type']]: FeedTie;
};

/** The stream categories of every kind (its resources', its registry's, its properties'), for the write side's index. */
export const RESOURCE_KIND_CATEGORIES: readonly string[] = RESOURCE_KINDS.flatMap((kind) => [
  kind.category,
  kind.registry.stream.slice(0, kind.registry.stream.indexOf('-')),
  kind.properties.category,
]);
