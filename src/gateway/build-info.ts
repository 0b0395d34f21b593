/**
 * What build of the gateway runs, for telemetry: the package's version (the resource's
 * `service.version` of traces, the `version` label of `gateway_build_info`), read once from
 * package.json — the same file from src/ and from the built dist/ — never by running a command.
 */
import { createRequire } from 'node:module';

let version: string | undefined;

/** package.json's `version`. */
export function packageVersion(): string {
  version ??= (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  return version;
}
