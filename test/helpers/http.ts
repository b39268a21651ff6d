export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export const api = (base: string) => {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : null };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    put: (path: string, body: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    patch: (path: string, body: unknown) => call('PATCH', path, body),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
  };
};

/**
 * Every item of an OpenStack-style list, page after page, following the `next` link each page gives
 * (`<collection>_links`); fails on a page that is not a 200 or on paging that does not end.
 */
export const everyPage = async (
  client: ReturnType<typeof api>,
  collection: string,
  first: string,
): Promise<{ readonly items: any[]; readonly pages: number }> => {
  const items: any[] = [];
  let pages = 0;
  for (let path: string | null = first; path !== null; pages++) {
    const response = await client.get(path);
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...response.body[collection]);
    const next = response.body[`${collection}_links`]?.find((link: { rel: string }) => link.rel === 'next')?.href as string | undefined;
    path = next === undefined ? null : new URL(next).pathname + new URL(next).search;
    if (pages > 50) throw new Error('paging does not end');
  }
  return { items, pages };
};

/** The ids of the resources a lease holds, from an allocations list (`/v1/os-hosts/allocations`, `/v1/floatingips/allocations`, ...). */
export const heldBy = async (
  client: ReturnType<typeof api>,
  allocations: string,
  leaseId: string,
  headers?: Record<string, string>,
): Promise<string[]> => {
  const response = await client.get(`${allocations}?lease_id=${leaseId}`, headers);
  if (response.status !== 200) throw new Error(`GET ${allocations}: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body.allocations as { resource_id: string; reservations: unknown[] }[])
    .filter((allocation) => allocation.reservations.length > 0)
    .map((allocation) => allocation.resource_id);
};

/** `YYYY-MM-DD HH:MM` in UTC, `minutes` from now (Blazar's request format). */
export const blazarDate = (minutesFromNow: number, base = Date.now()): string =>
  new Date(Math.floor(base / 60_000) * 60_000 + minutesFromNow * 60_000).toISOString().slice(0, 16).replace('T', ' ');

export const hostReservation = (min = 1, max = min, extra: Record<string, unknown> = {}) => ({
  resource_type: 'physical:host',
  min,
  max,
  hypervisor_properties: '',
  resource_properties: '',
  ...extra,
});

/** What one instance of a virtual:instance reservation takes. */
export interface InstanceSize {
  readonly vcpus: number;
  readonly memory_mb: number;
  readonly disk_gb: number;
}

/** A virtual:instance reservation as a JSON client sends it (every key upstream requires). */
export const instanceReservation = (amount: number, size: InstanceSize, extra: Record<string, unknown> = {}) => ({
  resource_type: 'virtual:instance',
  ...size,
  amount,
  affinity: null,
  resource_properties: '',
  ...extra,
});

/** A virtual:floatingip reservation. */
export const floatingIpReservation = (networkId: string, amount: number, requiredFloatingIps?: readonly string[]) => ({
  resource_type: 'virtual:floatingip',
  network_id: networkId,
  amount,
  ...(requiredFloatingIps === undefined ? {} : { required_floatingips: requiredFloatingIps }),
});
