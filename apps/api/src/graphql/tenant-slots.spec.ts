import { describe, expect, it } from 'vitest';
import { TenantSlots } from './tenant-slots.js';

describe('expensive operations per project', () => {
  it('gives each project its own slots: one project holding all of its own takes none of another', () => {
    const slots = new TenantSlots(2);
    expect(slots.take('a')).not.toBeNull();
    expect(slots.take('a')).not.toBeNull();
    expect(slots.take('a')).toBeNull();
    expect(slots.take('b')).not.toBeNull();
    expect(slots.take('b')).not.toBeNull();
    expect(slots.take('b')).toBeNull();
  });

  it('frees a slot once, however often it is released', () => {
    const slots = new TenantSlots(1);
    const release = slots.take('a');
    expect(slots.take('a')).toBeNull();
    release?.();
    release?.();
    expect(slots.take('a')).not.toBeNull();
    expect(slots.take('a')).toBeNull();
  });
});
