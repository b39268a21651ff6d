/** How many of something each key holds (sockets of an address, streams of a project); a key that holds none is forgotten. */
export class HeldCounts<K> {
  private readonly held = new Map<K, number>();

  of(key: K): number {
    return this.held.get(key) ?? 0;
  }

  add(key: K): void {
    this.held.set(key, this.of(key) + 1);
  }

  remove(key: K): void {
    const left = this.of(key) - 1;
    if (left > 0) this.held.set(key, left);
    else this.held.delete(key);
  }
}
