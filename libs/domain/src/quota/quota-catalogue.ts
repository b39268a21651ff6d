import { mergeOrders } from '../shared/merge-orders.js';
import type {
  HeldQuota,
  HeldQuotaDeclarations,
  MonthlyQuota,
  MonthlyQuotaDeclarations,
  QuotaCatalogue,
  QuotaDimension,
  QuotaLimits,
  QuotaName,
  QuotaWording,
} from './quota.types.js';

/** What one reservation type declares: its held quotas and its monthly ones. */
export interface QuotaDeclarations {
  readonly held: HeldQuotaDeclarations;
  readonly monthly: MonthlyQuotaDeclarations;
}

const sameWording = (a: QuotaWording, b: QuotaWording): boolean =>
  a.field === b.field && a.words === b.words && a.defaultVariable === b.defaultVariable;

/**
 * The catalogue of the quotas the types declare, in an order that keeps each type's own (held ones first). Two types may
 * count one quota (virtual:instance and flavor:instance count vCPUs) only with one wording: anything else is a mistake.
 */
export const quotaCatalogue = (declarations: readonly QuotaDeclarations[]): QuotaCatalogue => {
  const wording = new Map<string, QuotaWording>();
  const unitOf = new Map<string, HeldQuota>();
  const declare = (name: string, declared: QuotaWording): void => {
    const known = wording.get(name);
    if (known !== undefined && !sameWording(known, declared)) throw new Error(`Quota ${name} is declared twice, differently`);
    wording.set(name, { field: declared.field, words: declared.words, defaultVariable: declared.defaultVariable });
  };
  for (const { held, monthly } of declarations) {
    for (const [name, declared] of Object.entries(held)) declare(name, declared);
    for (const [name, declared] of Object.entries(monthly)) {
      declare(name, declared);
      if ((unitOf.get(name) ?? declared.unit) !== declared.unit) throw new Error(`Quota ${name} is declared with two units`);
      unitOf.set(name, declared.unit);
    }
  }
  const held = mergeOrders(declarations.map((d) => Object.keys(d.held))) as HeldQuota[];
  const monthly = mergeOrders(declarations.map((d) => Object.keys(d.monthly))) as MonthlyQuota[];
  for (const [name, unit] of unitOf)
    if (!wording.has(unit) || unitOf.has(unit)) throw new Error(`Monthly quota ${name} sums ${unit}, which is not a held quota`);
  const names: QuotaName[] = [...held, ...monthly];
  const dimensions = names.map(
    (name) => ({ name, unit: unitOf.get(name) ?? null, ...(wording.get(name) as QuotaWording) }) as QuotaDimension,
  );
  return {
    dimensions,
    names,
    held,
    monthly,
    unitOf: Object.fromEntries(unitOf) as Record<MonthlyQuota, HeldQuota>,
    wording: Object.fromEntries(wording) as Record<QuotaName, QuotaWording>,
    noLimits: Object.fromEntries(names.map((name) => [name, null])) as QuotaLimits,
  };
};
