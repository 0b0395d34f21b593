/**
 * `npm run service`: the commerce service alone. Reads its configuration from the environment
 * (PORT, HOST, COMMERCE_DB, COMMERCE_CLIENTS, COMMERCE_SEED, COMMERCE_SIGNIN_*; see
 * ./config.ts), listens, and stops cleanly on SIGINT/SIGTERM (in-flight requests finish, the
 * database is closed).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createCommerceService } from './app.ts';
import { loadServiceConfig } from './config.ts';
import { applyConnectionLimits } from './connection-limits.ts';
import { listeningAddress } from './listening-address.ts';

async function main(): Promise<void> {
  const config = loadServiceConfig();
  if (config.dbPath !== ':memory:' && !config.dbPath.startsWith('file:')) {
    mkdirSync(dirname(config.dbPath), { recursive: true });
  }
  const app = await createCommerceService({
    dbPath: config.dbPath,
    clients: config.clients,
    seed: config.seed,
    signInLimits: config.signInLimits,
    logger: false,
  });
  // Alone it may face the network: the gateway's timeouts and connection cap apply.
  applyConnectionLimits(app.server, config.connections);
  await app.listen({ port: config.port, host: config.host });
  const { bound, local } = listeningAddress(app.server.address());
  const demo = config.clients[0];
  console.log(`commerce service listening on ${bound} (database ${config.dbPath})`);
  if (bound !== local) console.log(`  every interface; from this machine: ${local}`);
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
