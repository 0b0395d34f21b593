/**
 * Customers (`/v2/customers`), the signed-in shopper (`viewer`: the customer of the request's
 * X-Moltin-Customer-Token, or the account member of its EP-Account-Management-Authentication-
 * Token, with their orders and carts) and signing in (`createCustomerToken`; an account member's
 * is in ./account-viewer.ts). Who sees what is the upstream's to decide: the gateway forwards the
 * token on every call of the request, and the v2 API scopes customers, orders and carts to it.
 */

import { expectList, expectResource } from '../upstream/client.ts';
import {
  BadUserInputError,
  InvalidCredentialsError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from '../upstream/errors.ts';
import { ACCOUNT_TOKEN_HEADER, CUSTOMER_TOKEN_HEADER } from '../upstream/forwarded-headers.ts';
import { FIRST_ROW } from '../upstream/paging/query.ts';
import { forwardedHeaders, type GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { CartConnection, CartRef, cartListArgs, toListedCart } from './cart.ts';
import { resolveList } from './connection.ts';
import { defineMutation, definePayload } from './kit/mutation.ts';
import { Orders } from './order.ts';
import { defineResource, field, type ShapeOfResource } from './resource.ts';
import { judgeNonEmpty, readString } from './rows.ts';

export const Customers = defineResource({
  name: 'Customer',
  singular: 'customer',
  plural: 'customers',
  description: 'A customer of the store (a shopper with an account). Passwords are never shown.',
  path: '/v2/customers',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials', 'customer'],
  fields: {
    name: field.string('Full name.'),
    email: field.string('Email address (unique in the store).'),
  },
  lookup: {
    field: 'customer',
    description:
      'One customer by upstream id; null when the store has no such customer (or, with a ' +
      'customer token, when it is not that customer).',
  },
  list: {
    field: 'customers',
    description:
      'The customers of the store (a client_credentials token; with a customer token, only ' +
      'that customer).',
    connection: 'customers',
    paging: 'keyset',
    offsetLimit: 'soft',
  },
});

type CustomerShape = ShapeOfResource<typeof Customers>;

/**
 * The signed-in shopper: the customer token's customer, or (customer null) the account member
 * of the account token, acting for its account.
 */
export interface ViewerShape {
  customer: CustomerShape | null;
}

export const ViewerRef = builder.objectRef<ViewerShape>('Viewer').implement({
  description:
    'The signed-in shopper and what belongs to them: the customer of the request’s ' +
    'X-Moltin-Customer-Token, or the account member of its EP-Account-Management-' +
    'Authentication-Token (then `customer` is null and `accountMember` and `account` say who).',
  fields: (t) => ({
    customer: t.expose('customer', {
      type: Customers.ref,
      nullable: true,
      description: 'The customer; null for an account member.',
    }),
    orders: Orders.connectionField(t, {
      description:
        'The customer’s orders (their checkouts), or the account’s for an account member; ' +
        'newest first with reverse: true.',
      connection: 'viewer:orders',
    }),
    carts: t.connection(
      {
        type: CartRef,
        description:
          'The customer’s carts (those created with their customer token), or the account’s.',
        args: cartListArgs,
        resolve: (_viewer, args, context) =>
          resolveList(context, args, {
            connection: 'viewer:carts',
            segments: ['carts'],
            toNode: toListedCart,
          }),
      },
      CartConnection,
    ),
  }),
});

function hasHeader(context: GatewayContext, name: string): boolean {
  return forwardedHeaders(context)?.[name] !== undefined;
}

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    nullable: true,
    description:
      'The signed-in shopper: the customer of the X-Moltin-Customer-Token header, or the ' +
      'account member of the EP-Account-Management-Authentication-Token header, with their ' +
      'orders and carts. Null with neither (no upstream call is made).',
    resolve: async (_root, _args, context) => {
      if (!hasHeader(context, CUSTOMER_TOKEN_HEADER)) {
        // An account member: who they are is read only when asked (./account-viewer.ts).
        return hasHeader(context, ACCOUNT_TOKEN_HEADER) ? { customer: null } : null;
      }
      // Under a customer token the customers list is that customer alone.
      const list = expectList(await context.get(['customers'], FIRST_ROW));
      const [row] = list.data;
      return row === undefined ? null : { customer: Customers.read(row) };
    },
  }),
}));

// ---- signing in ------------------------------------------------------------------------------

/**
 * A sign-in's failures said as what they are. RATE_LIMITED: the service's failed sign-in limits
 * (per `credential` and per client), not the store's request rate. INVALID_CREDENTIALS: the
 * upstream's 401 to the sign-in itself, unless it blames a token (the caller's bearer token, or
 * a customer or account token sent beside it), which stays UNAUTHENTICATED. The embedded
 * service and production both name the token when they refuse one ("The access token is not
 * valid", "Unable to validate access token"); a refused sign-in names the credentials. Any other
 * error passes on.
 */
export function signInRefused(credential: 'email' | 'username') {
  const credentials =
    credential === 'email'
      ? 'the email or the password is not correct'
      : 'the username, the password or the password profile is not correct';
  return (error: unknown): never => {
    if (error instanceof UnauthenticatedError && error.upstreamStatus === 401) {
      if (!blamesToken(error.upstreamDetail)) {
        throw new InvalidCredentialsError(
          `The sign-in was refused: ${credentials} (which one is not said); check them and sign in again`,
          { upstreamStatus: 401, cause: error },
        );
      }
    }
    if (!(error instanceof RateLimitedError)) throw error;
    const wait = error.retryAfterMs;
    const said = `Too many failed sign-ins for this ${credential} or from this client`;
    throw new RateLimitedError(
      wait === undefined ? `${said}; retry later` : `${said}; retry in ${Math.ceil(wait / 1000)} s`,
      { upstreamStatus: error.upstreamStatus, retryAfterMs: wait, cause: error },
    );
  };
}

/** Whether an upstream 401's detail is about a token or the Authorization header. */
function blamesToken(detail: string | undefined): boolean {
  return detail !== undefined && /\btoken\b|\bauthori[sz]ation\b/i.test(detail);
}

interface CustomerTokenShape {
  token: string;
  expiresAt: string;
  customerId: string;
}

const CreateCustomerTokenPayload = definePayload<CustomerTokenShape>('CreateCustomerTokenPayload', {
  description:
    'A customer token: send it as X-Moltin-Customer-Token to act as the customer (`viewer`, ' +
    'their carts and orders).',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The customer token (a secret).' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When the token stops working; sign in again then.',
    }),
    customer: t.field({
      type: Customers.ref,
      description: 'The signed-in customer (read with the new token; one upstream GET).',
      resolve: async (payload, _args, context) => {
        // A GET with this call's own customer token: write() takes per-call headers.
        const response = await context.write({
          method: 'GET',
          segments: ['customers', payload.customerId],
          headers: { [CUSTOMER_TOKEN_HEADER]: payload.token },
        });
        return Customers.read(expectResource(response));
      },
      // One GET: the query cost counts it (src/gateway/query-cost.ts).
      extensions: { upstreamCalls: 1 },
    }),
  }),
});

defineMutation('createCustomerToken', {
  description:
    'Signs a customer in (POST /v2/customers/tokens); works with a read-only (implicit) ' +
    'token. A wrong email or password is INVALID_CREDENTIALS, without saying which; a ' +
    'refused bearer token stays UNAUTHENTICATED.',
  input: {
    description: 'A customer’s credentials. The password is never logged nor echoed.',
    fields: (t) => ({
      email: t.string({ required: true, description: 'The customer’s email.' }),
      password: t.string({ required: true, description: 'The customer’s password.' }),
    }),
  },
  payload: CreateCustomerTokenPayload,
  resolve: async (input, context) => {
    const email = judgeNonEmpty(input.email, 'input.email');
    if (input.password === '' || input.password.length > 1024) {
      throw new BadUserInputError('input.password must be 1 to 1024 characters', {
        field: 'input.password',
      });
    }
    const response = await context
      .write({
        method: 'POST',
        segments: ['customers', 'tokens'],
        body: { data: { type: 'token', email, password: input.password } },
      })
      .catch(signInRefused('email'));
    const data = expectResource(response);
    const expires = data.expires;
    if (typeof expires !== 'number' || !Number.isFinite(expires)) {
      throw new UpstreamUnavailableError(
        'The commerce service sent an unusable answer (token.expires)',
        { reason: 'invalid-body' },
      );
    }
    return {
      token: readString(data, 'token', 'token'),
      customerId: readString(data, 'customer_id', 'token'),
      expiresAt: new Date(expires * 1000).toISOString(),
    };
  },
});
