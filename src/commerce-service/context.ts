/**
 * What every route module receives: the database, the clock and the timestamp source. Route
 * modules export `(ctx: ServiceContext) => FastifyPluginAsync` and are listed once in app.ts.
 * Routes under /v2 and /pcm find the caller's store in `request.store` (set by the auth hook).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AccountMemberContext } from './account-members/tokens.ts';
import type { ClientCredentials } from './config.ts';
import type { CustomerContext } from './customers/records.ts';
import type { Db } from './db.ts';
import type { SignInLimiter } from './sign-in-limits.ts';
import type { StoreContext } from './stores.ts';
import type { Clock } from './time.ts';

export interface ServiceContext {
  db: Db;
  /** Milliseconds since the epoch (injectable for tests). */
  clock: Clock;
  /** A fresh record timestamp (24-char ISO UTC), strictly increasing within the process. */
  timestamp: () => string;
  clients: ClientCredentials[];
  /** Failed sign-in limits of `POST /v2/customers/tokens`. */
  signInLimiter: SignInLimiter;
}

export type RouteModule = (ctx: ServiceContext) => FastifyPluginAsync;

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's store; set on every /v2 and /pcm route before the handler runs. */
    store: StoreContext;
    /** The customer of `X-Moltin-Customer-Token`, or null without one; set with `store`. */
    customer: CustomerContext | null;
    /**
     * The account member and account of `EP-Account-Management-Authentication-Token`, or null
     * without one; set with `store`. Never set together with `customer` (the hook refuses both).
     */
    accountMember: AccountMemberContext | null;
  }
}
