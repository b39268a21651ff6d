import { type DomainError, invalidField, textProblem } from '#domain/index.js';
import { type HostQuery, parseQuery } from './blazar-query.js';

/** The fields of a reservation that hold a property query. */
export type PropertyQueryField = 'hypervisorProperties' | 'resourceProperties' | 'networkProperties';

const malformed = (field: PropertyQueryField, why: string): DomainError =>
  invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:${field}} (${why})`);

/**
 * A property query parsed, with the strings inside it held to the text rules too: a JSON escape
 * (`"\u0000"`) would otherwise smuggle in what the raw text may not hold, and property names end up
 * in events.
 */
export const parsePropertyQuery = (text: string, field: PropertyQueryField): HostQuery => {
  const query = parseQuery(text);
  for (const { field: property, value } of query.conditions) {
    const problem = textProblem(property) ?? textProblem(value);
    if (problem !== null) throw malformed(field, problem);
  }
  return query;
};
