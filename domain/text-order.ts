/**
 * Texts compared by code point, as PostgreSQL's "C" collation orders them: the same on every machine, and many times
 * faster than `localeCompare` (ICU), which a sort of ten thousand borrowers pays in tens of milliseconds.
 */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
