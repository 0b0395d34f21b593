/**
 * The subscriptions' settings (docs/subscriptions.md), read for ./index.ts: the replay window of
 * the event bus and the webhook receiver's secret.
 */
import type { GatewayEventsOptions } from '../gateway/create-gateway.ts';
import {
  DEFAULT_EVENT_REPLAY_MAX,
  DEFAULT_EVENT_REPLAY_SECONDS,
} from '../gateway/events/memory-bus.ts';
import { ConfigError, type Env } from './errors.ts';
import { parseCount } from './values.ts';

/** The shortest WEBHOOK_SECRET taken: anything shorter is guessable. */
export const MIN_WEBHOOK_SECRET_LENGTH = 16;

/**
 * `EVENT_REPLAY_SECONDS` (default 300, at most a day), `EVENT_REPLAY_MAX` (default 10,000 events)
 * and `WEBHOOK_SECRET` (unset: no receiver, unless `npm start` wires the embedded service's
 * integration with a secret of its own).
 */
export type EventsConfig = Required<Pick<GatewayEventsOptions, 'replaySeconds' | 'replayMax'>> &
  Pick<GatewayEventsOptions, 'webhookSecret'>;

export function eventsFromEnv(env: Env): EventsConfig {
  const secret = env.WEBHOOK_SECRET ?? '';
  if (secret !== '' && secret.length < MIN_WEBHOOK_SECRET_LENGTH) {
    // The value is a secret: its length is said, never the value.
    throw new ConfigError(
      `WEBHOOK_SECRET must be at least ${MIN_WEBHOOK_SECRET_LENGTH} characters, got ${secret.length}`,
    );
  }
  return {
    replaySeconds: parseCount(
      'EVENT_REPLAY_SECONDS',
      env.EVENT_REPLAY_SECONDS,
      DEFAULT_EVENT_REPLAY_SECONDS,
      86_400,
    ),
    replayMax: parseCount(
      'EVENT_REPLAY_MAX',
      env.EVENT_REPLAY_MAX,
      DEFAULT_EVENT_REPLAY_MAX,
      1_000_000,
    ),
    ...(secret === '' ? {} : { webhookSecret: secret }),
  };
}
