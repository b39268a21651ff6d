import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { CreateLeaseDto } from '../leases/lease.dto.js';
import { reservationDto } from '../leases/reservation.dto.js';
import { refusal } from './testing/request-tables.js';
import { declaredFields, refuseUnknownFields, validateBody, validateExtensionBody } from './validate-body.js';

const HostReservationDto = reservationDto('physical:host');

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

describe("an extension's body: a key it does not know is refused, naming it", () => {
  it('lists the fields a DTO declares', () => {
    expect([...declaredFields(HostReservationDto)]).toEqual(['min', 'max', 'hypervisor_properties', 'resource_properties', 'before_end']);
  });

  it('names the first unknown key where it sits, quoted when it is no plain name, with why when given', () => {
    expect(refusal(() => refuseUnknownFields({ min: 1, bogus: 2 }, declaredFields(HostReservationDto)))).toEqual({
      status: 400,
      message: 'Unknown parameter bogus',
    });
    expect(refusal(() => refuseUnknownFields({ 'a b': 1 }, ['x'], ['flavor']))).toEqual({
      status: 400,
      message: 'Unknown parameter flavor["a b"]',
    });
    expect(
      refusal(() => refuseUnknownFields({ amount: 1 }, ['min'], ['reservations', 0], 'not a field of a physical:host reservation')),
    ).toEqual({
      status: 400,
      message: 'Unknown parameter reservations[0].amount (not a field of a physical:host reservation)',
    });
  });

  it('validateExtensionBody refuses an unknown key before the DTO judges the rest, and otherwise validates as validateBody', () => {
    expect(refusal(() => validateExtensionBody(HostReservationDto, { bogus: 1 }, ['reservations', 2]))).toEqual({
      status: 400,
      message: 'Unknown parameter reservations[2].bogus',
    });
    expect(refusal(() => validateExtensionBody(HostReservationDto, { min: 1 })).message).toBe('Missing parameter max');
    expect(validateExtensionBody(HostReservationDto, { min: 1, max: '2' })).toBeInstanceOf(HostReservationDto);
  });
});
