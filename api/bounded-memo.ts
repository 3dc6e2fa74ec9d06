/**
 * A memo of facts that never change once true (a verified token's claims, the branch an account belongs to), so
 * that a process reads or computes each once rather than on every request. Bounded: beyond `capacity` entries the
 * oldest is forgotten first (insertion order), so a flood of distinct keys costs lookups again, never memory.
 */
export class BoundedMemo<Value> {
  private readonly entries = new Map<string, Value>();

  constructor(private readonly capacity: number) {}

  get(key: string): Value | undefined {
    return this.entries.get(key);
  }

  remember(key: string, value: Value): void {
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, value);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
