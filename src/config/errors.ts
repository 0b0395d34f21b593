/**
 * The gateway's configuration error, apart from the loader so that a module that refuses a
 * startup input (src/gateway/persisted-documents.ts) can throw it without loading the loader.
 * The embedded service has its own (src/commerce-service/config.ts): neither imports the other.
 */

/** A variable of the environment that cannot be used; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';
}

/** The environment, or any stand-in for it (tests pass plain objects). */
export type Env = Record<string, string | undefined>;
