/**
 * The store's account-authentication settings and what a login page reads of its realm:
 * `GET /v2/settings/account-authentication` (any token of the store: the reference storefront's
 * login and sign-up pages read which realm members live in and whether they may sign themselves
 * up), `PUT` of the same (the store's), and the realm's OpenID Connect profiles, listed under
 * production's `openid-connect-profiles` and the storefront's `oidc-profiles`: always empty
 * here, as this service has no identity provider to sign in with (a profile by id is a 404).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { MAX_PAGE_LIMIT } from '../listing/index.ts';
import {
  checkType,
  optionalBoolean,
  optionalEnum,
  rejectUnknownKeys,
  requireData,
} from '../request-body.ts';
import {
  type AccountAuthenticationSettings,
  accountAuthenticationSettingsId,
  accountRealmId,
  readAccountAuthenticationSettings,
  requireRealm,
  writeAccountAuthenticationSettings,
} from './records.ts';

const TYPE = 'account_authentication_settings';
const TIMEOUT = 'account_management_authentication_token_timeout_secs';
/** A token lives a minute at least and a year at most. */
const MIN_TIMEOUT = 60;
const MAX_TIMEOUT = 365 * 24 * 3600;

function present(storeId: string, settings: AccountAuthenticationSettings) {
  const realm = accountRealmId(storeId);
  return {
    id: accountAuthenticationSettingsId(storeId),
    type: TYPE,
    ...settings,
    relationships: {
      authentication_realm: {
        data: {
          id: realm,
          type: 'authentication_realm',
          links: { self: `/v2/authentication-realms/${realm}` },
        },
      },
    },
    // Production's client id for account members' single sign-on flows.
    meta: { client_id: 'accounts' },
    links: { self: '/v2/settings/account-authentication' },
  };
}

/** The settings a PUT leaves: what it sends over what was there. */
function parseSettings(
  body: unknown,
  current: AccountAuthenticationSettings,
): AccountAuthenticationSettings {
  const data = requireData(body);
  checkType(data, TYPE);
  rejectUnknownKeys(data, [
    'type',
    'id',
    'enable_self_signup',
    'auto_create_account_for_account_members',
    'account_member_self_management',
    TIMEOUT,
  ]);
  const management = optionalEnum(data, 'account_member_self_management', [
    'disabled',
    'update_only',
  ] as const);
  if (management === 'update_only') {
    throw badRequest(
      'data.account_member_self_management "update_only" is not supported by this service (members cannot update their own records here); send "disabled".',
      'data.account_member_self_management',
    );
  }
  const timeout = data[TIMEOUT];
  if (
    timeout !== undefined &&
    (typeof timeout !== 'number' ||
      !Number.isInteger(timeout) ||
      timeout < MIN_TIMEOUT ||
      timeout > MAX_TIMEOUT)
  ) {
    throw badRequest(
      `data.${TIMEOUT} must be a whole number of seconds from ${MIN_TIMEOUT} to ${MAX_TIMEOUT}.`,
      `data.${TIMEOUT}`,
    );
  }
  return {
    enable_self_signup: optionalBoolean(data, 'enable_self_signup') ?? current.enable_self_signup,
    auto_create_account_for_account_members:
      optionalBoolean(data, 'auto_create_account_for_account_members') ??
      current.auto_create_account_for_account_members,
    account_member_self_management: management ?? current.account_member_self_management,
    account_management_authentication_token_timeout_secs:
      typeof timeout === 'number' ? timeout : current[TIMEOUT],
  };
}

const OIDC_PATHS = ['openid-connect-profiles', 'oidc-profiles'];

export function accountAuthenticationRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.get('/settings/account-authentication', async (request) => ({
      data: present(request.store.id, readAccountAuthenticationSettings(db, request.store.id)),
    }));

    app.put('/settings/account-authentication', async (request) => {
      const storeId = request.store.id;
      const next = db.transaction(() => {
        const settings = parseSettings(
          request.body,
          readAccountAuthenticationSettings(db, storeId),
        );
        writeAccountAuthenticationSettings(db, storeId, settings, ctx.timestamp());
        return settings;
      })();
      return { data: present(storeId, next) };
    });

    for (const path of OIDC_PATHS) {
      const base = `/authentication-realms/:realmId/${path}`;
      app.get<{ Params: { realmId: string } }>(base, async (request) => {
        requireRealm(request.store.id, request.params.realmId);
        return {
          data: [],
          links: {},
          meta: {
            page: { limit: MAX_PAGE_LIMIT, offset: 0, current: 1, total: 1 },
            results: { total: 0 },
          },
        };
      });
      app.get<{ Params: { realmId: string; profileId: string } }>(
        `${base}/:profileId`,
        async (request) => {
          requireRealm(request.store.id, request.params.realmId);
          throw notFound(
            `No OpenID Connect profile with id ${request.params.profileId}: this service has no identity provider, so the realm has none.`,
          );
        },
      );
    }
  };
}
