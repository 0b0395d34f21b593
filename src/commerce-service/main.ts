/**
 * `npm run service`: the commerce service alone. Reads its configuration from the environment
 * (PORT, HOST, COMMERCE_DB, COMMERCE_CLIENTS, COMMERCE_SEED, COMMERCE_SIGNIN_*, COMMERCE_HTTPS,
 * LOG_REQUESTS; see
 * ./config.ts), listens, and stops cleanly on SIGINT/SIGTERM (in-flight requests finish, the
 * database is closed).
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { createCommerceService } from './app.ts';
import { loadServiceConfig } from './config.ts';
import { applyConnectionLimits } from './connection-limits.ts';
import { requestLine } from './http-front.ts';
import { listeningAddress } from './listening-address.ts';
import { developmentCertificate } from './tls.ts';

/** Where the development certificate authority is kept (COMMERCE_HTTPS): reused across starts. */
const TLS_DIR = '.cache/commerce-tls';

/** A host worth naming in the certificate: not a wildcard address. */
const isNamed = (host: string) => host !== '' && host !== '0.0.0.0' && host !== '::';

async function main(): Promise<void> {
  const config = loadServiceConfig();
  if (config.dbPath !== ':memory:' && !config.dbPath.startsWith('file:')) {
    mkdirSync(dirname(config.dbPath), { recursive: true });
  }
  const tls = config.https
    ? developmentCertificate(TLS_DIR, [config.host, hostname()].filter(isNamed))
    : undefined;
  const app = await createCommerceService({
    dbPath: config.dbPath,
    clients: config.clients,
    seed: config.seed,
    signInLimits: config.signInLimits,
    logger: false,
    ...(tls ? { https: { key: tls.key, cert: tls.cert } } : {}),
    ...(config.logRequests ? { requestLog: (entry) => console.log(requestLine(entry)) } : {}),
  });
  // Alone it may face the network: the gateway's timeouts and connection cap apply.
  applyConnectionLimits(app.server, config.connections);
  await app.listen({ port: config.port, host: config.host });
  const { bound, local } = listeningAddress(app.server.address(), tls ? 'https' : 'http');
  const demo = config.clients[0];
  console.log(`commerce service listening on ${bound} (database ${config.dbPath})`);
  if (bound !== local) console.log(`  every interface; from this machine: ${local}`);
  if (tls) {
    console.log(`  TLS certificate made by the local authority ${tls.caPath}:`);
    console.log(`  trust it once (Node clients: NODE_EXTRA_CA_CERTS=${tls.caPath})`);
  }
  console.log(`  health: ${local}/healthz`);
  if (demo) {
    console.log(`demo store client: client_id=${demo.id} client_secret=${demo.secret}`);
    console.log(`get a token: curl -s -d grant_type=client_credentials -d client_id=${demo.id} \\`);
    console.log(`  -d client_secret=${demo.secret} ${local}/oauth/access_token`);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('error while stopping', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
