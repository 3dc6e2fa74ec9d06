import createClient from 'openapi-fetch';
import type { components, paths } from './coopbank-api';

/**
 * What a client developer writes against Coopbank with a client generated from /api/v1/schema/
 * (openapi-typescript for the types, openapi-fetch for the calls): every path, parameter, body and answer is
 * typed by the document, with no cast. `npm test` compiles it under `strict` and runs it against a real stack
 * (test/api/example-client.test.ts); `npm run client:types` regenerates ./coopbank-api.d.ts from the API.
 */

type CashOperation = components['schemas']['CashOperation'];

export interface DepositRequest {
  baseUrl: string;
  username: string;
  password: string;
  account: string;
  amount: string;
  /** Makes the deposit safe to retry: the same key and body answer the first result. */
  idempotencyKey: string;
}

export interface DepositOutcome {
  balanceBefore: string;
  deposit: CashOperation;
  /** The same request sent again, as a client does after a lost answer: nothing moves twice. */
  retry: { replayed: boolean; sameOperation: boolean };
  balanceAfter: string;
  /** The receipt read back where the Location header points. */
  receipt: CashOperation;
}

/** Signs in, reads the account, deposits with an Idempotency-Key, retries, reads the receipt and the new balance. */
export async function depositWithRetry(request: DepositRequest): Promise<DepositOutcome> {
  const client = createClient<paths>({ baseUrl: request.baseUrl });
  const token = await client.POST('/api/v1/token/', {
    body: { username: request.username, password: request.password },
  });
  if (token.data === undefined) throw new Error(`sign-in refused: ${token.error.detail}`);
  const headers = { Authorization: `Bearer ${token.data.access}` };
  const path = { id: request.account };

  const before = await client.GET('/api/v1/members/accounts/{id}/', { params: { path }, headers });
  if (before.data === undefined) throw new Error(`account unreadable: ${before.error.detail}`);

  const deposit = () =>
    client.POST('/api/v1/members/accounts/{id}/deposits/', {
      params: { path, header: { 'Idempotency-Key': request.idempotencyKey } },
      body: { amount: request.amount, reference: 'example client' },
      headers,
    });
  const first = await deposit();
  if (first.data === undefined) throw new Error(`deposit refused: ${first.error.code}: ${first.error.detail}`);
  const again = await deposit();
  if (again.data === undefined) throw new Error(`retry refused: ${again.error.code}: ${again.error.detail}`);

  const location = first.response.headers.get('Location');
  if (location === null) throw new Error('the deposit answered no Location');
  const receipt = await client.GET('/api/v1/members/deposits/{id}/', {
    params: { path: { id: first.data.id } },
    headers,
  });
  if (receipt.data === undefined) throw new Error(`receipt unreadable: ${receipt.error.detail}`);
  if (!location.endsWith(`/deposits/${receipt.data.id}/`)) throw new Error(`Location ${location} is not the receipt`);

  const after = await client.GET('/api/v1/members/accounts/{id}/', { params: { path }, headers });
  if (after.data === undefined) throw new Error(`account unreadable: ${after.error.detail}`);
  return {
    balanceBefore: before.data.balance,
    deposit: first.data,
    retry: {
      replayed: again.response.headers.get('Idempotent-Replayed') === 'true',
      sameOperation: again.data.id === first.data.id,
    },
    balanceAfter: after.data.balance,
    receipt: receipt.data,
  };
}
