import { describe, expect, it } from 'vitest';
import { ZOOM_LEVELS, clip, formatUtc, fractionOf, rangeAround, shifted, ticksOf, zoomLevel, zoomedTo } from './time-scale.js';

const HOUR = 3_600_000;
const at = (text: string): number => Date.parse(`${text}Z`);

describe('the time axis', () => {
  it('starts a tenth of the span before now, on a tick, and spans the zoom level', () => {
    const day = zoomLevel('1d');
    const range = rangeAround(at('2034-05-01T10:20:00'), day);
    // 10:20 - 2 h 24 min = 07:56, down to the 3-hour tick: 06:00
    expect(range).toEqual({ start: at('2034-05-01T06:00:00'), end: at('2034-05-02T06:00:00') });
    for (const level of ZOOM_LEVELS) {
      const around = rangeAround(at('2034-05-01T10:20:00'), level);
      expect(around.end - around.start, level.id).toBe(level.spanMs);
      expect(around.start % level.tickMs, level.id).toBe(0);
      expect(fractionOf(around, at('2034-05-01T10:20:00')), level.id).toBeGreaterThanOrEqual(0.1);
    }
  });

  it("moves by half a view and zooms from the same start, on the new level's tick", () => {
    const range = { start: at('2034-05-01T06:00:00'), end: at('2034-05-02T06:00:00') };
    expect(shifted(range, 1)).toEqual({ start: at('2034-05-01T18:00:00'), end: at('2034-05-02T18:00:00') });
    expect(shifted(range, -1)).toEqual({ start: at('2034-04-30T18:00:00'), end: at('2034-05-01T18:00:00') });
    expect(zoomedTo(range, zoomLevel('1w'))).toEqual({ start: at('2034-05-01T00:00:00'), end: at('2034-05-08T00:00:00') });
    expect(zoomedTo(range, zoomLevel('6h'))).toEqual({ start: at('2034-05-01T06:00:00'), end: at('2034-05-01T12:00:00') });
    expect(zoomLevel('no-such-level').id).toBe('1d');
  });

  it('clips a booking to the view, and drops one wholly outside it', () => {
    const range = { start: at('2034-05-01T00:00:00'), end: at('2034-05-01T10:00:00') };
    expect(clip(range, at('2034-05-01T01:00:00'), at('2034-05-01T06:00:00'))).toEqual({ left: 0.1, right: 0.6 });
    expect(clip(range, at('2034-04-30T20:00:00'), at('2034-05-01T02:00:00'))).toEqual({ left: 0, right: 0.2 });
    expect(clip(range, at('2034-05-01T09:00:00'), at('2034-05-02T00:00:00'))).toEqual({ left: 0.9, right: 1 });
    expect(clip(range, at('2034-05-01T10:00:00'), at('2034-05-01T11:00:00'))).toBeNull();
    expect(clip(range, at('2034-04-30T10:00:00'), at('2034-05-01T00:00:00'))).toBeNull();
  });

  it('labels ticks with the time within a day and the date from a day up', () => {
    const range = { start: at('2034-05-01T21:00:00'), end: at('2034-05-02T06:00:00') };
    expect(ticksOf(range, zoomLevel('1d')).map((tick) => tick.label)).toEqual(['21:00', '05-02 00:00', '03:00']);
    const week = zoomedTo(range, zoomLevel('1w'));
    expect(ticksOf(week, zoomLevel('1w')).map((tick) => tick.label)).toEqual([
      '05-01',
      '05-02',
      '05-03',
      '05-04',
      '05-05',
      '05-06',
      '05-07',
    ]);
    expect(ticksOf(range, zoomLevel('6h')).every((tick) => tick.at % HOUR === 0)).toBe(true);
    expect(formatUtc(at('2034-05-01T07:05:00'))).toBe('2034-05-01 07:05');
  });
});
