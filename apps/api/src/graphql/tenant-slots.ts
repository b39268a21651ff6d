/** Expensive operations running per project: each project may hold `perTenant` at once, whatever the others do. */
export class TenantSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly perTenant: number) {}

  /** A slot of this project, released by the function returned (once, however often it is called); null when all are held. */
  take(projectId: string): (() => void) | null {
    const held = this.held.get(projectId) ?? 0;
    if (held >= this.perTenant) return null;
    this.held.set(projectId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(projectId) ?? 1) - 1;
      if (left === 0) this.held.delete(projectId);
      else this.held.set(projectId, left);
    };
  }
}
