/**
 * Builds the embedded v2 commerce service (fastify + SQLite) without listening: `main.ts`
 * listens for `npm run service`, src/main.ts beside the gateway, tests on port 0.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { accountAuthenticationRoutes } from './account-members/authentication-routes.ts';
import { accountMembershipRoutes } from './account-members/memberships-routes.ts';
import { passwordProfileRoutes } from './account-members/password-profiles-routes.ts';
import { ensureAccountRealms } from './account-members/records.ts';
import { accountMemberRoutes } from './account-members/routes.ts';
import { createAccountMemberResolver } from './account-members/tokens.ts';
import { userAuthenticationInfoRoutes } from './account-members/user-authentication-info-routes.ts';
import { accountRoutes } from './accounts/routes.ts';
import { addressRoutes } from './addresses/routes.ts';
import { oauthRoutes } from './auth/routes.ts';
import { createAuthenticator } from './auth/tokens.ts';
import { cartRoutes } from './carts/routes.ts';
import { startSeededCartLifetimes } from './carts/storage.ts';
import { catalogRoutes } from './catalogs/routes.ts';
import { catalogRuleRoutes } from './catalogs/rules-routes.ts';
import { shopperCatalogRoutes } from './catalogs/shopper-routes.ts';
import {
  type ClientCredentials,
  DEFAULT_SIGN_IN_LIMITS,
  DEFAULT_WEBHOOK_DELIVERY,
  type SignInLimits,
  type WebhookDelivery,
} from './config.ts';
import type { RouteModule, ServiceContext } from './context.ts';
import { ensureDefaultCurrencies, storeCurrencyFormats } from './currencies/records.ts';
import { currencyRoutes } from './currencies/routes.ts';
import { entryRoutes } from './custom-apis/entries-routes.ts';
import { customFieldRoutes } from './custom-apis/fields-routes.ts';
import { customApiRoutes } from './custom-apis/routes.ts';
import { createCustomerResolver } from './customers/records.ts';
import { customerRoutes } from './customers/routes.ts';
import { openDatabase } from './db.ts';
import { badRequest, frameworkErrorHandler, registerErrorHandling } from './errors.ts';
import { fileRoutes, publicFileRoutes } from './files/routes.ts';
import { registerHttpFront, type ServiceRequestLog } from './http-front.ts';
import { startDeliverer } from './integrations/deliverer.ts';
import { attachOutbox } from './integrations/events.ts';
import { integrationRoutes } from './integrations/routes.ts';
import { inventoryLocationRoutes } from './inventory/locations-routes.ts';
import { inventoryRoutes } from './inventory/routes.ts';
import { stockTransactionRoutes } from './inventory/transactions-routes.ts';
import { startExportRunner } from './jobs/order-export.ts';
import { jobRoutes } from './jobs/routes.ts';
import { runWithCurrencyFormats } from './money.ts';
import { orderPaymentRoutes } from './orders/payments-routes.ts';
import { orderRoutes } from './orders/routes.ts';
import { pcmHierarchyRoutes } from './pcm/hierarchies-routes.ts';
import { pcmJobRoutes } from './pcm/jobs-routes.ts';
import { pcmNodeProductRoutes } from './pcm/node-products-routes.ts';
import { pcmNodeRoutes } from './pcm/nodes-routes.ts';
import { pcmProductRelationshipRoutes } from './pcm/product-relationships-routes.ts';
import { pcmProductRoutes } from './pcm/products-routes.ts';
import { pcmVariationRoutes } from './pcm/variations-routes.ts';
import { priceModifierRoutes } from './pricebooks/modifiers-routes.ts';
import { priceRoutes } from './pricebooks/prices-routes.ts';
import { pricebookRoutes } from './pricebooks/routes.ts';
import { promotionCodeRoutes } from './promotions/codes-routes.ts';
import { promotionRoutes } from './promotions/routes.ts';
import { checkScope, needsScope, scopeOf } from './scopes.ts';
import { searchRoutes } from './search/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { createSignInLimiter } from './sign-in-limits.ts';
import { ensureStores, type StoreContext } from './stores.ts';
import { type Clock, createTimestamper, systemClock } from './time.ts';

export interface CommerceServiceOptions {
  /** SQLite file path, or `:memory:`. The parent directory must exist. */
  dbPath: string;
  /** One store per client; the first client's store is the demo store. At least one. */
  clients: ClientCredentials[];
  /** Seed the demo store when it has never been seeded and holds no Custom APIs. */
  seed: boolean;
  /** How much the seed makes: orders, catalog products, the bench's bulk node. */
  seedOptions?: { orders?: number; products?: number; bulkNodeProducts?: number };
  /**
   * `true`: fastify's request log (pino, info level). Default: only unexpected errors (the
   * 500s) are logged, with their stack, so a bug never goes unseen.
   */
  logger?: boolean;
  /** Clock for token expiry and record timestamps; default `Date.now`. Tests inject one. */
  now?: Clock;
  /** Failed sign-in limits (src/config.ts); each default as there. */
  signInLimits?: Partial<SignInLimits>;
  /** How integration events are delivered (src/commerce-service/config.ts); each default as there. */
  webhooks?: Partial<WebhookDelivery>;
  /** Serve HTTPS with this key and certificate (PEM; ./tls.ts makes a development pair). */
  https?: { key: string; cert: string };
  /** Called once for every answered request (method, path with secrets redacted, status, ms). */
  requestLog?: (entry: ServiceRequestLog) => void;
}

/** A route the service registered: its method and url as declared (prefix included). */
export interface ServiceRoute {
  method: string;
  url: string;
}

const routesOf = new WeakMap<FastifyInstance, ServiceRoute[]>();

/** Every route of a service made by createCommerceService, as fastify registered them. */
export function serviceRoutes(app: FastifyInstance): readonly ServiceRoute[] {
  return routesOf.get(app) ?? [];
}

/** Largest request body; well above the 64 KB entry limit, so that limit answers with its own 413. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * Route modules by the prefix they are served under (`/v2`, PXM's `/pcm`, none), all behind the
 * bearer-token hook. Add a module here to serve it.
 */
const authenticatedRoutes: Record<string, RouteModule[]> = {
  '/v2': [
    settingsRoutes,
    currencyRoutes,
    customApiRoutes,
    customFieldRoutes,
    entryRoutes,
    cartRoutes,
    orderRoutes,
    orderPaymentRoutes,
    fileRoutes,
    accountRoutes,
    addressRoutes,
    accountMemberRoutes,
    accountMembershipRoutes,
    userAuthenticationInfoRoutes,
    accountAuthenticationRoutes,
    passwordProfileRoutes,
    customerRoutes,
    promotionRoutes,
    promotionCodeRoutes,
    inventoryRoutes,
    stockTransactionRoutes,
    inventoryLocationRoutes,
    integrationRoutes,
    jobRoutes,
  ],
  // The Product Experience Manager (the catalog's admin API): every route is the store's
  // (client_credentials) in scopes.ts.
  '/pcm': [
    pricebookRoutes,
    priceRoutes,
    priceModifierRoutes,
    pcmProductRoutes,
    pcmVariationRoutes,
    pcmProductRelationshipRoutes,
    pcmJobRoutes,
    pcmHierarchyRoutes,
    pcmNodeRoutes,
    pcmNodeProductRoutes,
  ],
  // Catalogs, releases and rules (/catalogs, with /pcm/catalogs as older docs call them) and
  // the shopper catalog (/catalog) and Catalog Search (/catalog/search, a release's search):
  // the modules declare their full paths.
  '': [catalogRoutes, catalogRuleRoutes, shopperCatalogRoutes, searchRoutes],
};

export async function createCommerceService(
  options: CommerceServiceOptions,
): Promise<FastifyInstance> {
  if (options.clients.length === 0) throw new Error('The commerce service needs a client');
  const db = openDatabase(options.dbPath);
  const clock = options.now ?? systemClock;
  const ctx: ServiceContext = {
    db,
    clock,
    timestamp: createTimestamper(clock),
    clients: options.clients,
    signInLimiter: createSignInLimiter(
      { ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits },
      clock,
    ),
  };

  let app: FastifyInstance;
  try {
    const storeIds = ensureStores(db, options.clients, ctx.timestamp());
    ensureAccountRealms(db, storeIds, ctx.timestamp());
    ensureDefaultCurrencies(db, storeIds, ctx.timestamp());
    const [demoStore] = storeIds;
    if (options.seed && demoStore !== undefined) await seedIfEmpty(ctx, demoStore, options);
    // An https server is a fastify instance of another server type; the routes do not care.
    app = Fastify({
      ...(options.https ? { https: options.https } : {}),
      logger: { level: options.logger === true ? 'info' : 'error' },
      bodyLimit: BODY_LIMIT,
      frameworkErrors: frameworkErrorHandler,
      // The official SDK posts item discounts to `…/items/{id}//custom-discounts`.
      routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true },
    }) as unknown as FastifyInstance;
  } catch (error) {
    db.close();
    throw error;
  }
  // Delivery starts with the service and resumes whatever the outbox still holds.
  const deliverer = startDeliverer(
    db,
    { ...DEFAULT_WEBHOOK_DELIVERY, ...options.webhooks },
    ctx.timestamp,
  );
  attachOutbox(db, { timestamp: ctx.timestamp, nudge: deliverer.nudge });
  const exports = startExportRunner(db, ctx.timestamp);
  app.addHook('onClose', async () => {
    await Promise.all([deliverer.stop(), exports.stop()]);
    db.close();
  });
  const routes: ServiceRoute[] = [];
  routesOf.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      // No authenticated route goes live without a decision on who may call it (scopes.ts).
      if (needsScope(route.url) && scopeOf(method, route.url) === undefined) {
        throw new Error(`${method} ${route.url} has no token scope in scopes.ts`);
      }
      routes.push({ method, url: route.url });
    }
  });

  registerErrorHandling(app);
  registerHttpFront(app, options.requestLog);
  // Only JSON (plus the JSON:API media type); text/plain bodies are a 415. An empty JSON body
  // is no body: the official SDK sends `Content-Type: application/json` on bodiless DELETEs,
  // and routes that need a body say so themselves.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const parseJsonOrNothing: Parameters<typeof app.addContentTypeParser>[2] = (
    request,
    body,
    done,
  ) => {
    if (body === '' || body.length === 0) return done(null, undefined);
    return parseJson(request, body as string, done);
  };
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser(
    ['application/json', 'application/vnd.api+json'],
    { parseAs: 'string' },
    parseJsonOrNothing,
  );
  app.decorateRequest('store', null as unknown as StoreContext);
  app.decorateRequest('customer', null);
  app.decorateRequest('accountMember', null);

  await app.register(oauthRoutes(ctx));
  // For a load balancer or a process manager, outside /v2: no token, no scope. The database
  // answering a trivial statement is what "up" means for this service.
  const ping = db.prepare('SELECT 1');
  app.get('/healthz', async () => {
    ping.get();
    return { status: 'ok' };
  });
  // Public files' bytes, at the address their link.href gives: no token (files/routes.ts).
  await app.register(publicFileRoutes(ctx));

  const authenticate = createAuthenticator(db, clock);
  const resolveCustomer = createCustomerResolver(db, clock);
  const resolveAccountMember = createAccountMemberResolver(db, clock);
  for (const [prefix, modules] of Object.entries(authenticatedRoutes)) {
    await app.register(
      async (scoped) => {
        // onRequest, before the body is read: an unauthenticated caller learns nothing about
        // body rules, and no body is parsed for it.
        scoped.addHook('onRequest', async (request) => {
          request.store = authenticate(request);
          request.customer = resolveCustomer(request, request.store.id);
          request.accountMember = resolveAccountMember(request, request.store.id);
          // Each token is judged first (401 for a bad one); then a request acts for one shopper.
          if (request.customer !== null && request.accountMember !== null) {
            throw badRequest(
              'Send X-Moltin-Customer-Token or EP-Account-Management-Authentication-Token, not both: a request acts for one customer or one account member.',
            );
          }
          checkScope(request);
        });
        // The handler (and all it awaits) formats prices in the store's currency formats
        // (money.ts). Entered in preHandler, the last hook before the handler, so no body
        // stream callback lies between entering the scope and the code that reads it.
        scoped.addHook('preHandler', (request, _reply, done) => {
          runWithCurrencyFormats(storeCurrencyFormats(db, request.store.id), done);
        });
        for (const routes of modules) await scoped.register(routes(ctx));
      },
      { prefix },
    );
  }
  return app;
}

async function seedIfEmpty(
  ctx: ServiceContext,
  storeId: string,
  options: CommerceServiceOptions,
): Promise<void> {
  const { db } = ctx;
  const store = db.prepare('SELECT seeded_at FROM stores WHERE id = ?').get(storeId) as
    | { seeded_at: string | null }
    | undefined;
  const hasData = db.prepare('SELECT 1 FROM custom_apis WHERE store_id = ? LIMIT 1').get(storeId);
  if (store?.seeded_at || hasData) return;
  // Imported on demand: the seed module is large and most tests run without it.
  const { seedDemoStore } = await import('./seed/index.ts');
  seedDemoStore(db, storeId, options.seedOptions);
  const now = ctx.timestamp();
  startSeededCartLifetimes(db, storeId, now);
  db.prepare('UPDATE stores SET seeded_at = ? WHERE id = ?').run(now, storeId);
}
