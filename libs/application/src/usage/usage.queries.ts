import { DateTime } from 'luxon';
import { DomainError, LAST_INSTANT_MS, LAST_REQUEST_DATE, invalid, notFound, pricesOnHosts } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { type Caller, authorize } from '../caller.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { PublishedRateCard, UsageIndex } from './usage-index.js';
import { GROUP_BY, type GroupBy } from './usage-groups.js';
import { type Pricing, accumulate, renderLines } from './usage-report.js';

/** A usage report as any transport asks for it: the raw query values (null: not given). */
export interface UsageRequest {
  /** ISO 8601 (a transport parses its own date forms). */
  readonly start: string;
  readonly end: string;
  readonly projectId: string | null;
  readonly groupBy: string | null;
  /** `NAME` (the version in effect at the window's start) or `NAME:VERSION` (an explicit re-rating). */
  readonly rateCard: string | null;
  /** A log position to compute at (null: the head). */
  readonly asOfPosition: string | null;
  /** ISO 8601: what running leases are counted up to (null: `now`); with the position, what pins a report. */
  readonly until: string | null;
  /** ISO 8601: the instant the report is asked for, by the transport's clock. */
  readonly now: string;
}

export const rateCardNotFound = (what: string): DomainError => notFound('RATE_CARD_NOT_FOUND', `Rate card ${what} not found`);

const parseGroupBy = (value: string | null): GroupBy => {
  if (value === null) return 'project';
  if ((GROUP_BY as readonly string[]).includes(value)) return value as GroupBy;
  throw invalid('INVALID_GROUP_BY', `group_by must be one of ${GROUP_BY.join(', ')}`);
};

const POSITION = /^[1-9]\d{0,15}$/;

/** An ISO 8601 instant, normalised to UTC with milliseconds; none after the last instant a date may be. */
const instant = (value: string, name: string): string => {
  const date = DateTime.fromISO(value, { zone: 'utc' });
  if (!date.isValid) throw invalid('INVALID_DATE', `${name} is not an ISO 8601 date`);
  if (date.toMillis() > LAST_INSTANT_MS) throw invalid('INVALID_DATE', `${name} must not be after ${LAST_REQUEST_DATE} UTC`);
  return date.toUTC().toISO();
};

/**
 * The instant a report counts up to: the window's end, or `until` (default: the instant the report is asked for) where
 * that comes first; a lease still running at the report's position counts up to it. Never in the future: hours not yet
 * run are not usage.
 */
const countedUntil = (request: UsageRequest, end: string): string => {
  const until = request.until === null ? instant(request.now, 'now') : instant(request.until, 'until');
  if (Date.parse(until) > Date.parse(request.now)) throw invalid('INVALID_DATE', 'until must not be in the future');
  return Date.parse(until) < Date.parse(end) ? until : end;
};

/** The public shape of a rate-card version (docs/usage.md). */
export const rateCardView = (card: PublishedRateCard): object => ({
  name: card.name,
  version: card.version,
  currency: card.currency,
  effective_from: card.effectiveFrom,
  prices: card.prices,
  capability_prices: card.capabilityPrices,
  published_at: card.publishedAt,
});

/**
 * Usage reports and rate cards, read from the usage index (the clock only as the request's `now`): a report names the
 * log position it was computed at and the instant it counts up to, and the same request with that position and `until`
 * gives the same bytes. Entry point for every transport (HTTP, GraphQL, CLI): `report(caller, request)`.
 */
export class UsageQueries {
  constructor(
    private readonly store: EventStore,
    private readonly index: UsageIndex,
  ) {}

  async report(caller: Caller, request: UsageRequest): Promise<{ usage: object }> {
    const projectId = this.projectScope(caller, request.projectId);
    const start = instant(request.start, 'start');
    const end = instant(request.end, 'end');
    if (Date.parse(end) <= Date.parse(start)) throw invalid('INVALID_WINDOW', 'end must be after start');
    const groupBy = parseGroupBy(request.groupBy);
    const until = countedUntil(request, end);
    const { position, recordedAt } = await this.positionOf(request.asOfPosition);
    await this.index.catchUp();
    const card = request.rateCard === null ? null : this.rateCardFor(request.rateCard, position, start);
    const pricing: Pricing | null =
      card === null ? null : { card, capabilitiesOf: (hostId) => this.index.capabilitiesAt(hostId, position), onHost: pricesOnHosts(card) };
    const window = { startMs: Date.parse(start), endMs: Date.parse(until) };
    const pieces = this.index.leaseIds(projectId).flatMap((leaseId) => this.index.piecesAt(leaseId, position));
    const { lines, totals } = renderLines(accumulate(pieces, window, groupBy, pricing), pricing);
    const rateCard =
      card === null ? null : { name: card.name, version: card.version, currency: card.currency, effective_from: card.effectiveFrom };
    return {
      usage: {
        start,
        end,
        project_id: projectId,
        group_by: groupBy,
        as_of_position: position,
        as_of: recordedAt,
        until,
        rate_card: rateCard,
        lines,
        totals,
      },
    };
  }

  /** Every rate card's latest version, by name. */
  async rateCards(caller: Caller): Promise<{ rate_cards: object[] }> {
    authorize(caller, ACTIONS.rateCardGet);
    await this.index.catchUp();
    const head = Number.MAX_SAFE_INTEGER;
    return {
      rate_cards: this.index
        .rateCardNames(head)
        .map((name) => rateCardView(this.index.rateCardVersions(name, head).at(-1) as PublishedRateCard)),
    };
  }

  /** One rate card: its latest version and every version, oldest first. */
  async rateCard(caller: Caller, name: string): Promise<{ rate_card: object; versions: object[] }> {
    authorize(caller, ACTIONS.rateCardGet);
    await this.index.catchUp();
    const versions = this.index.rateCardVersions(name, Number.MAX_SAFE_INTEGER);
    const latest = versions.at(-1);
    if (latest === undefined) throw rateCardNotFound(name);
    return { rate_card: rateCardView(latest), versions: versions.map(rateCardView) };
  }

  /**
   * The project a report covers (null: every project), or a 403: members see their own project;
   * those the policy lets see every project may name one or none. A transport may ask first (the policy before a 400).
   */
  projectScope(caller: Caller, requested: string | null): string | null {
    if (caller.can(ACTIONS.usageGetAll)) return requested;
    const projectId = requested ?? caller.projectId;
    authorize(caller, ACTIONS.usageGet, { project_id: projectId, user_id: caller.userId });
    return projectId;
  }

  /** The position to compute at and the instant it was recorded (the report's `as_of`). */
  private async positionOf(asOfPosition: string | null): Promise<{ position: number; recordedAt: string }> {
    if (asOfPosition !== null && !POSITION.test(asOfPosition))
      throw invalid('INVALID_POSITION', 'as_of_position must be a positive integer');
    const head = await this.store.headPosition();
    const position = asOfPosition === null ? head : Number(asOfPosition);
    if (position === 0) throw invalid('INVALID_POSITION', 'The log is empty: there is nothing to report yet');
    if (position > head) throw invalid('INVALID_POSITION', `as_of_position ${position} is beyond the log's head (${head})`);
    const [event] = await this.store.readAll({ from: position - 1, limit: 1 });
    if (event?.position !== position) throw invalid('INVALID_POSITION', `No event was recorded at position ${position}`);
    return { position, recordedAt: event.recordedAt };
  }

  private rateCardFor(value: string, position: number, start: string): PublishedRateCard {
    const colon = value.lastIndexOf(':');
    const name = colon === -1 ? value : value.slice(0, colon);
    const versions = this.index.rateCardVersions(name, position);
    if (versions.length === 0) throw rateCardNotFound(name);
    if (colon !== -1) {
      const version = value.slice(colon + 1);
      const card = /^[1-9]\d{0,8}$/.test(version) ? versions.find((v) => v.version === Number(version)) : undefined;
      if (card === undefined) throw rateCardNotFound(`${name} version ${version}`);
      return card;
    }
    const startMs = Date.parse(start);
    const inEffect = versions.filter((v) => Date.parse(v.effectiveFrom) <= startMs).at(-1);
    if (inEffect === undefined) throw rateCardNotFound(`${name} in effect at ${start}`);
    return inEffect;
  }
}
