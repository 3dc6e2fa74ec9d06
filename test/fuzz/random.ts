/**
 * A small seeded generator of our own, so that a seed printed by a run replays that run's requests exactly
 * (Math.random cannot be seeded).
 */
export type Random = () => number;

/** mulberry32: 32 bits of state, uniform enough for choosing inputs, and trivially reproducible. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A 32-bit seed derived from the run's seed and a name (FNV-1a): each operation and caller gets a stream of
 * its own, so what one operation receives does not depend on how many requests came before it.
 */
export function deriveSeed(seed: number, ...names: string[]): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of names.join('\u0001')) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

export const intBelow = (random: Random, bound: number): number => Math.floor(random() * bound);

export function pick<T>(random: Random, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[intBelow(random, items.length)]!;
}

export function shuffle<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = intBelow(random, index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/** A well-formed version 4 UUID drawn from `random`: an id nothing in the database has. */
export function randomUuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => intBelow(random, 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[intBelow(random, 4)]!;
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}
