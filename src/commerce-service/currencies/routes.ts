/**
 * Currencies (`/v2/currencies`, production's currencies.yaml): the store's currencies and their
 * format templates. Writes are the store's; reads are any token's, because the reference
 * storefront reads them with its implicit token (getAllCurrencies) to format prices (scopes.ts).
 * The store's rules, as production states them: at most ten currencies (422), codes unique
 * (400, "Currency already exists"), exactly one default (making one the default takes it from
 * the other; the default cannot be deleted, disabled or un-defaulted: 422).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import { type CurrencyInput, parseCurrencyUpdate, parseNewCurrency } from './bodies.ts';
import {
  CURRENCY_COLUMNS,
  type CurrencyRow,
  findCurrency,
  insertCurrency,
  MAX_CURRENCIES,
  presentCurrency,
} from './records.ts';

interface CurrencyParams {
  currencyId: string;
}

function checkCodeFree(db: Db, storeId: string, code: string, exceptId: string | null): void {
  const taken = db
    .prepare('SELECT id FROM currencies WHERE store_id = ? AND code = ?')
    .pluck()
    .get(storeId, code) as string | undefined;
  if (taken !== undefined && taken !== exceptId) {
    throw badRequest(`Currency already exists: the store has a currency ${code}.`, 'data.code');
  }
}

/** The default must stay enabled and stay the default until another takes its place. */
function checkDefaultKept(row: CurrencyRow, change: Partial<CurrencyInput>): void {
  if (row.is_default !== 1) return;
  if (change.isDefault === false) {
    throw unprocessable(
      `${row.code} is the store's default currency; make another currency the default instead.`,
      'data.default',
    );
  }
  if (change.enabled === false) {
    throw unprocessable(
      `${row.code} is the store's default currency and cannot be disabled.`,
      'data.enabled',
    );
  }
}

function toColumns(input: Partial<CurrencyInput>): Partial<CurrencyRow> {
  const columns: Partial<CurrencyRow> = {
    code: input.code,
    exchange_rate: input.exchangeRate,
    format: input.format,
    decimal_point: input.decimalPoint,
    thousand_separator: input.thousandSeparator,
    decimal_places: input.decimalPlaces,
    is_default: input.isDefault === undefined ? undefined : input.isDefault ? 1 : 0,
    enabled: input.enabled === undefined ? undefined : input.enabled ? 1 : 0,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined));
}

export function currencyRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec();
  const clearDefault = db.prepare(
    'UPDATE currencies SET is_default = 0, updated_at = ? WHERE store_id = ? AND is_default = 1',
  );

  return async (app) => {
    app.get('/currencies', async (request) =>
      listResources({
        request,
        db,
        table: 'currencies',
        columns: CURRENCY_COLUMNS,
        scope: { store_id: request.store.id },
        spec,
        map: (row: CurrencyRow) => presentCurrency(row),
      }),
    );

    app.get<{ Params: CurrencyParams }>('/currencies/:currencyId', async (request) => ({
      data: presentCurrency(findCurrency(db, request.store.id, request.params.currencyId)),
    }));

    app.post('/currencies', async (request, reply) => {
      const input = parseNewCurrency(request.body);
      const storeId = request.store.id;
      const row = db.transaction(() => {
        const count = db
          .prepare('SELECT count(*) FROM currencies WHERE store_id = ?')
          .pluck()
          .get(storeId) as number;
        if (count >= MAX_CURRENCIES) {
          throw unprocessable(
            `Currency limit reached: a store has at most ${MAX_CURRENCIES} currencies.`,
          );
        }
        checkCodeFree(db, storeId, input.code, null);
        if (input.isDefault && !input.enabled) {
          throw unprocessable('The default currency must be enabled.', 'data.enabled');
        }
        const now = ctx.timestamp();
        if (input.isDefault) clearDefault.run(now, storeId);
        const created: CurrencyRow = {
          id: newId(),
          store_id: storeId,
          code: input.code,
          exchange_rate: input.exchangeRate,
          format: input.format,
          decimal_point: input.decimalPoint,
          thousand_separator: input.thousandSeparator,
          decimal_places: input.decimalPlaces,
          is_default: input.isDefault ? 1 : 0,
          enabled: input.enabled ? 1 : 0,
          created_at: now,
          updated_at: now,
        };
        insertCurrency(db, created);
        return created;
      })();
      reply.code(201);
      return { data: presentCurrency(row) };
    });

    app.put<{ Params: CurrencyParams }>('/currencies/:currencyId', async (request) => {
      const change = parseCurrencyUpdate(request.body);
      const storeId = request.store.id;
      const row = db.transaction(() => {
        const current = findCurrency(db, storeId, request.params.currencyId);
        checkDefaultKept(current, change);
        if (change.code !== undefined) checkCodeFree(db, storeId, change.code, current.id);
        if (change.isDefault === true && (change.enabled ?? current.enabled === 1) === false) {
          throw unprocessable('The default currency must be enabled.', 'data.enabled');
        }
        const now = ctx.timestamp();
        if (change.isDefault === true && current.is_default !== 1) clearDefault.run(now, storeId);
        const next: CurrencyRow = { ...current, ...toColumns(change), updated_at: now };
        db.prepare(
          `UPDATE currencies SET code = @code, exchange_rate = @exchange_rate, format = @format,
             decimal_point = @decimal_point, thousand_separator = @thousand_separator,
             decimal_places = @decimal_places, is_default = @is_default, enabled = @enabled,
             updated_at = @updated_at
           WHERE id = @id`,
        ).run(next);
        return next;
      })();
      return { data: presentCurrency(row) };
    });

    app.delete<{ Params: CurrencyParams }>('/currencies/:currencyId', async (request, reply) => {
      const row = findCurrency(db, request.store.id, request.params.currencyId);
      if (row.is_default === 1) {
        throw unprocessable(
          `${row.code} is the store's default currency; make another currency the default before deleting it.`,
        );
      }
      db.prepare('DELETE FROM currencies WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });
  };
}
