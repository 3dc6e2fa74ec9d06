import { datePattern, periodPattern, violation, type JsonSchema } from './schema';
import { pick, randomUuid, type Random } from './random';

/**
 * Values: the plausible ones that fill a request around the field under attack (so the attack reaches as
 * deep as validation lets it), and the hostile ones.
 */

/**
 * Ids of real resources, by the list path that answered them (`/api/v1/loans/loans/`) and by its last segment
 * (`loans`).
 */
export interface IdPools {
  byPath: Map<string, string[]>;
  bySegment: Map<string, string[]>;
  /** Every real id, to tell an unknown id from a real one. */
  known: Set<string>;
}

const lastSegment = (path: string): string =>
  path
    .split('/')
    .filter((segment) => segment !== '' && !segment.startsWith('{'))
    .at(-1) ?? '';
const plural = (name: string): string =>
  /(ch|sh|s|x)$/.test(name) ? `${name}es` : name.endsWith('y') ? `${name.slice(0, -1)}ies` : `${name}s`;

/** Real ids for the path parameter `name` of `template`: the list at the same path, else a list of the same name. */
export function idsForPathParam(pools: IdPools, template: string, name: string): string[] {
  const prefix = template.slice(0, template.indexOf(`{${name}}`));
  const collection = name === 'id' ? lastSegment(prefix) : plural(name.replace(/_(pk|id)$/, ''));
  return pools.byPath.get(prefix) ?? pools.bySegment.get(collection) ?? [];
}

/** Real ids for a field named `client`, `share_type`…: the list named like it (`clients`, `types`). */
function idsForField(pools: IdPools, name: string): string[] {
  return pools.bySegment.get(plural(name)) ?? pools.bySegment.get(plural(name.split('_').at(-1)!)) ?? [];
}

const typeOf = (schema: JsonSchema): string | undefined => [schema.type ?? []].flat().find((type) => type !== 'null');

const stringCandidates = [
  '150000',
  '2026-01-15',
  '001',
  'FZ1',
  'CM',
  '0.01',
  '3711',
  'fuzz.user',
  'Fuzz value',
  'Africa/Douala',
  'fuzz@example.com',
];

/** A value the schema accepts as far as we can tell, built from its examples, enum, format and pattern. */
export function plausible(schema: JsonSchema, name: string, random: Random, pools: IdPools): unknown {
  if (schema.enum !== undefined && schema.enum.length > 0) return pick(random, schema.enum);
  if (schema.examples !== undefined && schema.examples.length > 0) return schema.examples[0];
  if (schema.pattern === periodPattern) return '2026-01';
  switch (typeOf(schema)) {
    case 'string': {
      if (schema.format === 'uuid') return pickOr(random, idsForField(pools, name), () => randomUuid(random));
      const fits = stringCandidates.filter((candidate) => violation(schema, candidate, name) === undefined);
      return fits.length > 0 ? pick(random, fits) : 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    }
    case 'integer':
    case 'number':
      return Math.min(Math.max(1, schema.minimum ?? 1), schema.maximum ?? Infinity);
    case 'boolean':
      return false;
    case 'array':
      return (schema.minItems ?? 0) > 0 && schema.items !== undefined
        ? [plausible(schema.items, name, random, pools)]
        : [];
    case 'object':
      return requiredPart(schema, random, pools);
    default:
      return 'x';
  }
}

/** An object of the schema's required fields only: the attacked field aside, nothing optional is changed. */
export function requiredPart(schema: JsonSchema, random: Random, pools: IdPools): Record<string, unknown> {
  const properties = schema.properties ?? {};
  return Object.fromEntries(
    (schema.required ?? []).map((name) => [name, plausible(properties[name] ?? {}, name, random, pools)]),
  );
}

const pickOr = <T>(random: Random, items: readonly T[], otherwise: () => T): T =>
  items.length > 0 ? pick(random, items) : otherwise();

/** Values of another JSON type than the field's, among those the brief names. */
export function wrongTypeValues(schema: JsonSchema): unknown[] {
  const candidates: unknown[] = [
    {},
    [],
    [true],
    [1],
    '12',
    12,
    1.5,
    true,
    { toString: 'x' },
    ['x'],
    [[]],
    { a: { b: 1 } },
  ];
  const wrong = candidates.filter((value) => violation({ type: schema.type ?? [] }, value, 'field') !== undefined);
  return wrong.length > 0 ? wrong : candidates;
}

/** Text nobody should store: NUL bytes, lone surrogates, direction overrides, combining marks, case traps. */
export const unicodeValues = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udc00',
  '\ud83c',
  'e\u0301',
  '🏦💸',
  '\u202eabc',
  '\ufeffabc',
  'ß',
  'İ',
  'a\u2028b',
  '١٢٣',
  'ｆｕｌｌ',
  '\u0085',
];

/** Amounts as a client might get them wrong, and numbers at the edges. */
const amountEdges = [
  '-1',
  '1e9',
  '00012',
  '١٢٣',
  '1.5',
  '0',
  '',
  ' 12',
  '12 ',
  '+12',
  '0x10',
  '12abc',
  '9'.repeat(40),
  '1,000',
  'NaN',
  'Infinity',
];
const numberEdges: unknown[] = [-1, 0, 1e9, 1e18, 1e308, 1.5, -0.5, 2 ** 53 + 1, '12', '١٢٣', [1]];
const dateEdges = [
  '2026-02-30',
  '9999-12-31',
  '0001-01-01',
  '2026-13-01',
  '2026-00-10',
  '2026-1-1',
  '20260101',
  '2026-02-29',
  '1899-12-31',
  '2026-01-15T00:00:00Z',
  '',
];
/** Months a date cannot bound (9999-12 ends on 10000-01-01's eve), or that do not exist. */
const periodEdges = [
  '9999-12',
  '0000-01',
  '1000-01',
  '1899-12',
  '3000-01',
  '2026-13',
  '2026-00',
  '2026-1',
  '202601',
  '2026-01-15',
  '',
];
const uuidEdges = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '',
  "' OR '1'='1",
  '7d0f3c2a1b4e4c5d8e9f0a1b2c3d4e5f',
];

/** Hostile values suited to a field: edge amounts and numbers, impossible dates, malformed ids, bad enums. */
export function edgeValues(schema: JsonSchema, random: Random): unknown[] {
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number') return numberEdges;
  if (type === 'boolean') return ['true', 1, 0, [true], 'yes', null];
  if (type !== 'string') return [...numberEdges, ...amountEdges];
  if (schema.pattern === datePattern) return dateEdges;
  if (schema.pattern === periodPattern) return periodEdges;
  if (schema.format === 'uuid') return [...uuidEdges, randomUuid(random)];
  if (schema.enum !== undefined) return ['zzz', String(schema.enum[0]).toUpperCase(), '', ` ${String(schema.enum[0])}`];
  return [
    ...amountEdges,
    ...(schema.maxLength !== undefined ? ['x'.repeat(schema.maxLength + 1)] : []),
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '%00',
    '../../etc/passwd',
  ];
}

/** Text values for a query parameter of this schema (percent-encoded later). */
export function queryEdgeValues(schema: JsonSchema, random: Random): string[] {
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number')
    return [
      '1e18',
      '0',
      '-1',
      '1.5',
      '00012',
      '١٢٣',
      'NaN',
      'Infinity',
      '',
      ' 1',
      '0x10',
      '9007199254740993',
      '12abc',
      '1e3',
    ];
  if (type === 'boolean') return ['yes', '2', 'TRUE', '', 'null', 'true,false'];
  if (schema.pattern === datePattern) return dateEdges;
  if (schema.pattern === periodPattern) return periodEdges;
  if (schema.format === 'uuid') return [...uuidEdges, randomUuid(random)];
  if (schema.enum !== undefined)
    return ['zzz', String(schema.enum[0]).toUpperCase(), '', `${String(schema.enum[0])},${String(schema.enum.at(-1))}`];
  return ['x'.repeat(2000), "' OR 1=1 --", '-', ',', '*', '\u202eabc', '١٢٣', ''];
}

/** Nesting as deep as `depth`: arrays, or objects whose only key nests further. */
export const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
export const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
