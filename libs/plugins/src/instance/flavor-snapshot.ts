import type { Flavor } from '#domain/index.js';

/** Python's json.dumps string escaping (ensure_ascii): non-ASCII as \uXXXX. */
const pyString = (text: string): string =>
  JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Python prints a float with at least one decimal (1.0, not 1). */
const pyFloat = (value: number): string => (Number.isInteger(value) ? `${value}.0` : String(value));

/**
 * What upstream stores as a flavor:instance reservation's resource_properties: `json.dumps` of the
 * Nova flavor dict, extra specs included, in Nova's field order.
 */
export const flavorResourceProperties = (flavor: Flavor): string => {
  const specs = Object.entries(flavor.extraSpecs)
    .map(([key, value]) => `${pyString(key)}: ${pyString(value)}`)
    .join(', ');
  const fields = [
    `"id": ${pyString(flavor.id)}`,
    `"name": ${pyString(flavor.name)}`,
    `"ram": ${flavor.ram}`,
    `"disk": ${flavor.disk}`,
    `"swap": ${flavor.swap === 0 ? '""' : flavor.swap}`,
    `"OS-FLV-EXT-DATA:ephemeral": ${flavor.ephemeral}`,
    `"OS-FLV-DISABLED:disabled": false`,
    `"vcpus": ${flavor.vcpus}`,
    `"os-flavor-access:is_public": ${flavor.isPublic ? 'true' : 'false'}`,
    `"rxtx_factor": ${pyFloat(flavor.rxtxFactor)}`,
    `"extra_specs": {${specs}}`,
  ];
  return `{${fields.join(', ')}}`;
};
