import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { CreateLeaseDto } from '../leases/lease.dto.js';
import { refusal } from './testing/request-tables.js';
import { validateBody } from './validate-body.js';

describe('validateBody: the DTO sees the body as it is', () => {
  const lease = { name: 'l', start_date: 'now', end_date: 'now' };

  it('keeps the fields as sent, without converting them', () => {
    const dto = validateBody(CreateLeaseDto, { ...lease, reservations: [{ min: '2' }] });
    expect(dto).toBeInstanceOf(CreateLeaseDto);
    expect(dto.reservations).toEqual([{ min: '2' }]);
  });

  it('a nested key named constructor, or a key __proto__, neither crashes nor reaches a prototype', () => {
    expect(validateBody(CreateLeaseDto, { ...lease, before_end_date: { constructor: { x: '5' } } }).before_end_date).toEqual({
      constructor: { x: '5' },
    });
    const polluted = validateBody(
      CreateLeaseDto,
      JSON.parse('{"name": "l", "start_date": "now", "end_date": "now", "__proto__": {"isAdmin": true}}'),
    );
    expect(Object.getPrototypeOf(polluted)).toBe(CreateLeaseDto.prototype);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('refuses what is not an object', () => {
    expect(refusal(() => validateBody(CreateLeaseDto, [lease]))).toEqual({
      status: 400,
      message: 'Malformed request body: a JSON object is required',
    });
  });
});
