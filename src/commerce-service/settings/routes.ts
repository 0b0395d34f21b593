/**
 * Store settings: `GET|PUT /v2/settings` (page_length, the default page size of every list) and
 * `GET|PUT /v2/settings/cart` (discounts.custom_discounts_enabled, the default of new carts).
 * Route modules that need a setting read `request.store.settings` or `readStoreSettings`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { MAX_PAGE_LIMIT } from '../listing/index.ts';
import {
  checkType,
  isObject,
  optionalBoolean,
  rejectUnknownKeys,
  requireData,
} from '../request-body.ts';
import { readStoreSettings, type StoreSettings, updateStoreSettings } from '../stores.ts';

function settingsJson(settings: StoreSettings) {
  return { data: { type: 'settings', page_length: settings.pageLength } };
}

function cartSettingsJson(settings: StoreSettings) {
  return {
    data: {
      type: 'settings',
      discounts: { custom_discounts_enabled: settings.customDiscountsEnabled },
    },
  };
}

export function settingsRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/settings', async (request) =>
      settingsJson(readStoreSettings(ctx.db, request.store.id)),
    );

    app.put('/settings', async (request) => {
      const data = requireData(request.body);
      checkType(data, 'settings');
      rejectUnknownKeys(data, ['type', 'page_length']);
      const raw = data.page_length;
      let pageLength: number | undefined;
      if (raw !== undefined && raw !== null) {
        if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_PAGE_LIMIT) {
          throw badRequest(
            `page_length must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`,
            'data.page_length',
          );
        }
        pageLength = raw;
      }
      return settingsJson(
        updateStoreSettings(ctx.db, request.store.id, { pageLength }, ctx.timestamp()),
      );
    });

    app.get('/settings/cart', async (request) =>
      cartSettingsJson(readStoreSettings(ctx.db, request.store.id)),
    );

    app.put('/settings/cart', async (request) => {
      const data = requireData(request.body);
      checkType(data, 'settings');
      rejectUnknownKeys(data, ['type', 'discounts']);
      let customDiscountsEnabled: boolean | undefined;
      if (data.discounts !== undefined) {
        if (!isObject(data.discounts)) {
          throw badRequest('discounts must be an object.', 'data.discounts');
        }
        rejectUnknownKeys(data.discounts, ['custom_discounts_enabled'], 'data.discounts');
        customDiscountsEnabled = optionalBoolean(
          data.discounts,
          'custom_discounts_enabled',
          'data.discounts',
        );
      }
      return cartSettingsJson(
        updateStoreSettings(ctx.db, request.store.id, { customDiscountsEnabled }, ctx.timestamp()),
      );
    });
  };
}
