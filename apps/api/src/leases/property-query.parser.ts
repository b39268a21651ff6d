import { type HostQuery, parseQuery } from '../../../../libs/plugins/src/query/blazar-query.js';
import { malformedField, textProblem } from '../http/input-rules.js';

/**
 * A property query (`hypervisor_properties`, `resource_properties`) parsed, with the strings inside
 * it held to the input rules too: a JSON escape (`"\u0000"`) would otherwise smuggle in what the
 * raw text may not hold, and property names end up in events.
 */
export const parsePropertyQuery = (text: string, field: string): HostQuery => {
  const query = parseQuery(text);
  for (const { field: property, value } of query.conditions) {
    const problem = textProblem(property) ?? textProblem(value);
    if (problem !== null) throw malformedField([field], problem);
  }
  return query;
};
