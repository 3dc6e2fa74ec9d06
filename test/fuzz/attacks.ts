import { datePattern, periodPattern, type JsonSchema, type Operation } from './schema';
import { intBelow, pick, randomUuid, shuffle, type Random } from './random';
import { bogusAuthorizations } from './tokens';
import {
  deepArray,
  deepObject,
  edgeValues,
  idsForPathParam,
  plausible,
  queryEdgeValues,
  requiredPart,
  unicodeValues,
  wrongTypeValues,
  type IdPools,
} from './values';

/** One malformed request, before it is sent and judged. */
export interface FuzzRequest {
  /** What is wrong with it, e.g. `wrong type in body.amount`. */
  attack: string;
  method: string;
  /** Percent-encoded path parameter values. */
  pathValues: Record<string, string>;
  /** Percent-encoded query pairs, in order (a key may repeat). */
  query: [string, string][];
  body: string | undefined;
  contentType: string | undefined;
  chunked?: boolean;
  /** A bogus Authorization header (undefined: none at all) in place of the caller's. */
  bogusAuthorization?: { name: string; header: string | undefined };
}

export interface Target {
  op: Operation;
  random: Random;
  pools: IdPools;
  bodyLimitBytes: number;
  /** The caller's real `Bearer …` header, from which the bogus tokens are forged. */
  authorization: string;
  /** A valid body the world knows for this operation, over the required fields the schema makes. */
  knownBody?: Record<string, unknown>;
}

/** The plausible request an attack changes one thing in: real ids in the path, required fields only. */
interface Base {
  pathValues: Record<string, string>;
  query: [string, string][];
  body: Record<string, unknown> | undefined;
}

type Attack = (target: Target, base: Base) => Partial<FuzzRequest> & { attack: string };

/**
 * percent-encoding that keeps a lone surrogate as the bytes a careless client would send (WTF-8, e.g.
 * %ED%A0%80), where encodeURIComponent would throw.
 */
function encodeText(text: string): string {
  return [...text]
    .map((char) => {
      const code = char.charCodeAt(0);
      if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
          .map((byte) => `%${byte.toString(16).toUpperCase()}`)
          .join('');
      }
      return encodeURIComponent(char);
    })
    .join('');
}

const fieldsOf = (target: Target): string[] => Object.keys(target.op.body?.properties ?? {});
const stringFieldsOf = (target: Target): string[] => {
  const strings = fieldsOf(target).filter((name) =>
    [target.op.body!.properties![name]!.type].flat().includes('string'),
  );
  return strings.length > 0 ? strings : fieldsOf(target);
};
/** A field to attack; a made-up one when the body declares none. */
const fieldFrom = (target: Target, names: string[]): string =>
  names.length > 0 ? pick(target.random, names) : 'value';
const schemaOf = (target: Target, field: string) => target.op.body?.properties?.[field] ?? {};

const withField = (base: Base, field: string, value: unknown): string =>
  JSON.stringify({ ...base.body, [field]: value });
/** The base body with `field` set to raw JSON text (deep nesting, keys JSON.stringify would not write). */
function withRawField(base: Base, field: string, raw: string): string {
  const rest = Object.fromEntries(Object.entries(base.body ?? {}).filter(([name]) => name !== field));
  const text = JSON.stringify(rest);
  return text === '{}' ? `{${JSON.stringify(field)}:${raw}}` : `{${JSON.stringify(field)}:${raw},${text.slice(1)}`;
}

const wrongType =
  (field: string): Attack =>
  (target, base) => ({
    attack: `wrong JSON type in body.${field}`,
    body: withField(base, field, pick(target.random, wrongTypeValues(schemaOf(target, field)))),
  });

const fieldValue =
  (field: string, value: unknown): Attack =>
  (_target, base) => ({
    attack: `edge value ${JSON.stringify(value).slice(0, 40)} in body.${field}`,
    body: withField(base, field, value),
  });

const protoKeys = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'prototype',
];
const protoValues = ['{"admin":true}', '{"prototype":{"polluted":true}}', '"x"', '1', 'null', '[]'];

const protoKeyInBody =
  (key: string): Attack =>
  (target, base) => ({
    attack: `prototype key body.${key}`,
    body: withRawField(base, key, pick(target.random, protoValues)),
  });

const queryValue =
  (name: string, value: string): Attack =>
  (_target, base) => ({
    attack: `query ${name}=${JSON.stringify(value.slice(0, 40))}`,
    query: [...base.query.filter(([key]) => key !== name), [name, encodeText(value)]],
  });

const protoKeyInQuery =
  (key: string): Attack =>
  (target, base) => ({
    attack: `query key ${key}`,
    query: [...base.query, [encodeText(key), pick(target.random, ['1', 'x', ''])]],
  });

const bodyAttacks: Record<string, Attack> = {
  'missing required field': (target, base) => {
    const required = target.op.body?.required ?? [];
    const dropped = target.random() < 0.2 ? required : [pick(target.random, required)];
    return {
      attack: `missing body.${dropped.join(', body.')}`,
      body: JSON.stringify(
        Object.fromEntries(Object.entries(base.body ?? {}).filter(([name]) => !dropped.includes(name))),
      ),
    };
  },
  'unknown field': (target, base) => {
    const field = fieldFrom(target, fieldsOf(target));
    const name = pick(target.random, [
      'zz_unknown',
      field.toUpperCase(),
      `${field} `,
      'id',
      'created_by',
      'enterprise_id',
      'is_admin',
      '',
    ]);
    return {
      attack: `unknown field body.${JSON.stringify(name)}`,
      body: withField(base, name, pick(target.random, [1, 'x', {}, null, true])),
    };
  },
  'prototype key in body': (target, base) => protoKeyInBody(pick(target.random, protoKeys))(target, base),
  'null value': (target, base) => {
    if (target.random() < 0.15) return { attack: 'body is null', body: 'null' };
    const field = fieldFrom(target, fieldsOf(target));
    return { attack: `null in body.${field}`, body: withField(base, field, null) };
  },
  '100 KB string': (target, base) => {
    const field = fieldFrom(target, stringFieldsOf(target));
    return {
      attack: `100 KB string in body.${field}`,
      body: withField(base, field, pick(target.random, ['x'.repeat(100_000), 'é'.repeat(50_000), '9'.repeat(100_000)])),
    };
  },
  'deep nesting': (target) => {
    const depth = pick(target.random, [5000, 33, 100_000]);
    return { attack: `body nested ${depth} deep`, body: target.random() < 0.5 ? deepArray(depth) : deepObject(depth) };
  },
  'deep nesting in a field': (target, base) => {
    const field = fieldFrom(target, fieldsOf(target));
    const depth = pick(target.random, [5000, 40]);
    return {
      attack: `body.${field} nested ${depth} deep`,
      body: withRawField(base, field, target.random() < 0.5 ? deepArray(depth) : deepObject(depth)),
    };
  },
  'unicode edge': (target, base) => {
    const field = fieldFrom(target, stringFieldsOf(target));
    const value = pick(target.random, unicodeValues);
    return { attack: `unicode ${JSON.stringify(value)} in body.${field}`, body: withField(base, field, value) };
  },
  'edge value': (target, base) => {
    const field = fieldFrom(target, fieldsOf(target));
    return fieldValue(field, pick(target.random, edgeValues(schemaOf(target, field), target.random)))(target, base);
  },
  'body not an object': (target, base) => {
    const body = pick(target.random, ['[]', '"x"', '42', '[{}]', 'true', '""', `[${JSON.stringify(base.body)}]`]);
    return { attack: `body ${body.slice(0, 20)}`, body };
  },
  'body over the limit': (target, base) => {
    const field = fieldFrom(target, stringFieldsOf(target));
    const chunked = target.random() < 0.5;
    return {
      attack: `body over the limit${chunked ? ', chunked' : ''}`,
      body: withField(base, field, 'x'.repeat(target.bodyLimitBytes + 1024)),
      chunked,
    };
  },
  'wrong content type': (target, base) => {
    const [contentType, body] = pick(target.random, [
      ['text/plain', JSON.stringify(base.body)],
      [
        'multipart/form-data; boundary=fuzz',
        '--fuzz\r\nContent-Disposition: form-data; name="amount"\r\n\r\n100\r\n--fuzz--\r\n',
      ],
      ['application/x-www-form-urlencoded', 'amount=100&__proto__=1'],
      ['application/xml', '<amount>100</amount>'],
      [undefined, JSON.stringify(base.body)],
    ] as const);
    return { attack: `content type ${contentType ?? '(none)'}`, contentType, body };
  },
  'malformed JSON': (target) => {
    const body = pick(target.random, [
      '{',
      '{"a":1,}',
      "{'a':1}",
      '{"a":1}{"b":2}',
      '{"a":1',
      'NaN',
      '{"a":01}',
      '{"a":"\\x41"}',
      '{"a":"\u0001"}',
      '\u0000',
    ]);
    return { attack: `malformed JSON ${JSON.stringify(body)}`, body };
  },
};

/** A declared query parameter, or `page` for an operation that takes none (it must ignore it or refuse it). */
const queryParamOf = (target: Target) =>
  target.op.queryParams.length > 0
    ? pick(target.random, target.op.queryParams)
    : { name: 'page', schema: { type: 'integer' }, in: 'query' as const, required: false };

const queryAttacks: Record<string, Attack> = {
  'query edge value': (target, base) => {
    const parameter = queryParamOf(target);
    const value =
      target.random() < 0.1
        ? 'x'.repeat(100_000)
        : pick(target.random, [...queryEdgeValues(parameter.schema, target.random), 'a\u0000b', '\ud800']);
    return queryValue(parameter.name, value)(target, base);
  },
  'repeated query parameter': (target, base) => {
    const parameter = queryParamOf(target);
    const first =
      base.query.find(([name]) => name === parameter.name)?.[1] ??
      encodeText(String(plausible(parameter.schema, parameter.name, target.random, target.pools)));
    return {
      attack: `query ${parameter.name} given twice`,
      query: [...base.query, [parameter.name, first], [parameter.name, parameter.name === 'page' ? '2' : first]],
    };
  },
  'prototype key in query': (target, base) =>
    protoKeyInQuery(pick(target.random, [...protoKeys, '__proto__[admin]', 'constructor[prototype][x]']))(target, base),
  'unknown query parameter': (target, base) => {
    const key = pick(target.random, ['zz_unknown', 'PAGE', 'page[]', 'limit', 'offset', 'format', 'page ', '']);
    return { attack: `unknown query key ${JSON.stringify(key)}`, query: [...base.query, [encodeText(key), '1']] };
  },
};

const malformedIds = [
  'not-a-uuid',
  '0',
  '-1',
  '1e18',
  'a%00b',
  '%ED%A0%80',
  '%',
  '%zz',
  "x'%20OR%20'1'='1",
  'x'.repeat(5000),
  '00000000-0000-0000-0000-00000000000g',
  '%7Bid%7D',
  '__proto__',
  'constructor',
  'toString',
  'null',
  '%20',
  'a%2Fb',
  '7d0f3c2a1b4e4c5d8e9f0a1b2c3d4e5f',
  encodeText('١٢٣'),
];

const pathAttacks: Record<string, Attack> = {
  'malformed path id': (target, base) => {
    const parameter = pick(target.random, target.op.pathParams);
    const value = pick(target.random, malformedIds);
    return {
      attack: `path ${parameter.name}=${JSON.stringify(value.slice(0, 40))}`,
      pathValues: { ...base.pathValues, [parameter.name]: value },
    };
  },
  'unknown path id': (target, base) => {
    const parameter = pick(target.random, target.op.pathParams);
    const value = target.random() < 0.2 ? '00000000-0000-0000-0000-000000000000' : randomUuid(target.random);
    return {
      attack: `unknown ${parameter.name} ${value}`,
      pathValues: { ...base.pathValues, [parameter.name]: value },
    };
  },
};

const bogusToken: Attack = (target) => {
  const [name, header] = pick(target.random, Object.entries(bogusAuthorizations(target.authorization)));
  return { attack: `bogus token (${name})`, bogusAuthorization: { name, header } };
};

function attacksFor(op: Operation): Attack[] {
  return [
    ...(op.body === undefined
      ? []
      : Object.entries(bodyAttacks)
          .filter(([name]) => name !== 'missing required field' || (op.body!.required ?? []).length > 0)
          .map(([, attack]) => attack)),
    ...Object.values(queryAttacks),
    ...(op.pathParams.length === 0 ? [] : Object.values(pathAttacks)),
    bogusToken,
  ];
}

/**
 * The inputs named in the fuzzer's brief, sent on every run wherever they apply rather than left to chance:
 * a wrong JSON type in every body field, the impossible dates in every date, the malformed amounts in every
 * field of digits, `page=1e18` and `page` twice, the three prototype keys in the body and the query.
 */
function namedAttacks(op: Operation): Attack[] {
  const fields = Object.entries(op.body?.properties ?? {});
  const page = op.queryParams.some((parameter) => parameter.name === 'page');
  return [
    ...fields.map(([name]) => wrongType(name)),
    ...fields.flatMap(([name, schema]) => namedValuesOf(schema).map((value) => fieldValue(name, value))),
    ...(op.body === undefined ? [] : namedProtoKeys.map(protoKeyInBody)),
    ...namedProtoKeys.map(protoKeyInQuery),
    ...op.queryParams
      .filter((parameter) => parameter.schema.pattern === datePattern || parameter.schema.pattern === periodPattern)
      .flatMap((parameter) => namedValuesOf(parameter.schema).map((value) => queryValue(parameter.name, value))),
    ...(page ? [queryValue('page', '1e18'), pageTwice] : []),
  ];
}

const plausibleRequest: Attack = () => ({ attack: 'none: real ids, the required fields' });
const pageTwice: Attack = (_target, base) => ({
  attack: 'query page given twice',
  query: [...base.query, ['page', '1'], ['page', '2']],
});
const namedDates = ['2026-02-30', '9999-12-31', '0001-01-01'];
const namedPeriods = ['9999-12', '0000-01', '1000-01', '2026-13', '2026-00'];
const namedValuesOf = (schema: JsonSchema): string[] =>
  schema.pattern === datePattern
    ? namedDates
    : schema.pattern === periodPattern
      ? namedPeriods
      : isDigitsField(schema)
        ? namedAmounts
        : [];
const namedAmounts = ['-1', '1e9', '00012', '١٢٣', '1.5'];
const namedProtoKeys = ['__proto__', 'constructor', 'toString'];
/** Amounts and codes written in digits: `^\d+$`, `^\d{1,15}$`… */
const isDigitsField = (schema: JsonSchema): boolean => /^\^\\d(\+|\{[\d,]+\})\$$/.test(schema.pattern ?? '');

/**
 * The attacks of one operation and caller: the named ones, then every other kind of attack in a seeded
 * order, round and round until the budget is spent; then, with path parameters, the plausible request itself.
 */
export function planAttacks(op: Operation, random: Random, budget: number): Attack[] {
  const others = shuffle(random, attacksFor(op));
  const plan = namedAttacks(op);
  for (let index = 0; plan.length < budget || index < others.length; index += 1)
    plan.push(others[index % others.length]!);
  // Last, the request as plausible as the fuzzer makes it: what reaches the handler with the path's real ids, if
  // anything does.
  return op.pathParams.length > 0 ? [...plan, plausibleRequest] : plan;
}

/** Builds one malformed request: a plausible base with the attack applied. */
export function buildRequest(target: Target, attack: Attack): FuzzRequest {
  const { op, random, pools } = target;
  const pathValues = Object.fromEntries(
    op.pathParams.map((parameter) => {
      const ids = idsForPathParam(pools, op.path, parameter.name);
      return [parameter.name, ids.length > 0 ? ids[intBelow(random, ids.length)]! : randomUuid(random)];
    }),
  );
  const query = op.queryParams
    .filter((parameter) => parameter.required)
    .map((parameter): [string, string] => [
      parameter.name,
      encodeText(String(plausible(parameter.schema, parameter.name, random, pools))),
    ]);
  const base: Base = {
    pathValues,
    query,
    body: op.body === undefined ? undefined : { ...requiredPart(op.body, random, pools), ...target.knownBody },
  };
  const defaults = {
    method: op.method,
    pathValues,
    query,
    body: base.body === undefined ? undefined : JSON.stringify(base.body),
    contentType: base.body === undefined ? undefined : 'application/json',
  };
  // A raw file upload sends the world's valid file (its `file`), of the operation's media type.
  const file = target.knownBody?.file;
  if (op.upload !== undefined && typeof file === 'string')
    Object.assign(defaults, { body: file, contentType: op.upload });
  return { ...defaults, ...attack(target, base) };
}
