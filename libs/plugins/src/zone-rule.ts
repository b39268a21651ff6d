/** A number of hosts, or a share of some total (the general-pool floor's `25%`). */
export type ZoneAmount = { readonly kind: 'hosts'; readonly hosts: number } | { readonly kind: 'percent'; readonly percent: number };

/**
 * A per-availability-zone setting: `2` (every zone), `nova:2,az2:10%` (those zones only) or both
 * (`1,nova:2`: nova keeps 2, every other zone 1). An empty value is no rule at all.
 */
export interface ZoneRule {
  readonly text: string;
  readonly everyZone: ZoneAmount | null;
  readonly zones: ReadonlyMap<string, ZoneAmount>;
}

export const NO_ZONE_RULE: ZoneRule = { text: '', everyZone: null, zones: new Map() };

const amountOf = (name: string, text: string, percentAllowed: boolean): ZoneAmount => {
  const percent = /^(\d+)%$/.exec(text);
  if (percent !== null && percentAllowed && Number(percent[1]) <= 100) return { kind: 'percent', percent: Number(percent[1]) };
  if (/^\d+$/.test(text)) return { kind: 'hosts', hosts: Number(text) };
  throw new Error(`${name}: '${text}' is not ${percentAllowed ? 'a number of hosts or a percentage (0-100%)' : 'a number of hosts'}`);
};

/** Parses `name`'s value; throws (a start-up error) on anything it cannot read. */
export const parseZoneRule = (name: string, raw: string | undefined, options: { readonly percentAllowed: boolean }): ZoneRule => {
  const text = raw?.trim() ?? '';
  let everyZone: ZoneAmount | null = null;
  const zones = new Map<string, ZoneAmount>();
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const colon = entry.lastIndexOf(':');
    if (colon === -1) {
      if (everyZone !== null) throw new Error(`${name}: more than one amount for every zone in '${text}'`);
      everyZone = amountOf(name, entry, options.percentAllowed);
      continue;
    }
    const zone = entry.slice(0, colon).trim();
    if (zone === '' || zones.has(zone)) throw new Error(`${name}: '${entry}' names no zone, or a zone named twice`);
    zones.set(zone, amountOf(name, entry.slice(colon + 1).trim(), options.percentAllowed));
  }
  return { text, everyZone, zones };
};

/** The rule's amount for `zone`, or null when the rule says nothing of it. */
export const amountFor = (rule: ZoneRule, zone: string): ZoneAmount | null => rule.zones.get(zone) ?? rule.everyZone;

/** Hosts an amount stands for in a zone of `total` hosts (a share rounds up: a floor of 10% of 5 hosts keeps 1). */
export const hostsOf = (amount: ZoneAmount, total: number): number =>
  amount.kind === 'hosts' ? amount.hosts : Math.ceil((amount.percent * total) / 100);

export const describeAmount = (amount: ZoneAmount): string => (amount.kind === 'hosts' ? String(amount.hosts) : `${amount.percent}%`);

export const zoneName = (zone: string): string => (zone === '' ? 'the zone without a name' : `zone ${zone}`);
