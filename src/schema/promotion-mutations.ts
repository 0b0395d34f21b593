/**
 * The merchandiser's promotion writes, both engines: create, update and disable a promotion
 * (`createPromotion`, `createRulePromotion`, …), add codes and delete one. The v2 bodies are
 * built here from typed input, every value judged first (promotion-input.ts); an update sends
 * only what it was given (the upstream lays it over the stored promotion and judges the whole).
 * What the engines share (disable, the payloads, the code writes of
 * promotion-code-mutations.ts) is built once per engine.
 */

import type { InputFieldMap } from '@pothos/core';
import { expectResource, type JsonObject, type UpstreamResponse } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, type IdFields } from './kit/mutation.ts';
import { type Answered, answerPayload, defineDelete, writeAnswer } from './kit/writes.ts';
import { PromotionType, RulePromotions, StandardPromotions } from './promotion.ts';
import { defineCodeWrites } from './promotion-code-mutations.ts';
import {
  type CurrencyAmount,
  judgeAmount,
  judgeCount,
  judgeCurrency,
  judgeCurrencyAmounts,
  judgePercent,
  judgeSkus,
  judgeWindow,
  MAX_CURRENCIES,
} from './promotion-input.ts';
import { judgeNonEmpty } from './rows.ts';

type Engine = typeof StandardPromotions | typeof RulePromotions;
type Field = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

const CurrencyAmountInput = builder.inputRef<CurrencyAmount>('PromotionAmountInput').implement({
  description: 'A promotion amount (a discount or a minimum cart value) in one currency.',
  fields: (t) => ({
    currency: t.string({ required: true, description: 'ISO 4217 code, e.g. USD.' }),
    amount: t.int({ required: true, description: 'Minor units.' }),
  }),
});

/** The fields both engines' create and update take; `required` on create. */
interface CommonInput {
  name?: string | null;
  description?: string | null;
  enabled?: boolean | null;
  automatic?: boolean | null;
  start?: string | null;
  end?: string | null;
}

const commonFields = (t: Field, required: boolean) => ({
  name: t.string({ required, description: 'Name shown to merchandisers (1 to 255).' }),
  description: t.string({ required: false, description: 'What it is for (up to 1000).' }),
  enabled: t.boolean({ required, description: 'Whether it may apply.' }),
  automatic: t.boolean({ required: false, description: 'Applies without a code. Default false.' }),
  start: t.field({ type: 'DateTime', required, description: 'When it starts.' }),
  end: t.field({ type: 'DateTime', required, description: 'When it ends (after start).' }),
});

/** The judged common fields as v2 body fields; only those given. */
function commonBody(input: CommonInput): JsonObject {
  const body: JsonObject = {};
  if (input.name != null) body.name = judgeNonEmpty(input.name, 'input.name');
  if (input.description != null) {
    if (input.description.length > 1000) {
      throw new BadUserInputError('input.description must be at most 1000 characters', {
        field: 'input.description',
      });
    }
    body.description = input.description;
  }
  if (input.enabled != null) body.enabled = input.enabled;
  if (input.automatic != null) body.automatic = input.automatic;
  if (input.start != null) body.start = input.start;
  if (input.end != null) body.end = input.end;
  if (input.start != null && input.end != null) judgeWindow(input.start, input.end, 'input.end');
  return body;
}

// ---- standard promotions ----------------------------------------------------------------------

interface StandardInput extends CommonInput {
  promotionType?: string | null;
  amounts?: CurrencyAmount[] | null;
  percent?: number | null;
  targetSkus?: string[] | null;
  minCartValue?: CurrencyAmount[] | null;
}

const standardFields = (t: Field, required: boolean) => ({
  ...commonFields(t, required),
  promotionType: t.field({
    type: PromotionType,
    required,
    description: 'The kind; on update, give it to change the discount (with its values).',
  }),
  amounts: t.field({
    type: [CurrencyAmountInput],
    required: false,
    description: 'Fixed kinds: the amount per currency (1 to 2^31−1 minor units).',
  }),
  percent: t.float({ required: false, description: 'Percent kinds: 0 to 100.' }),
  targetSkus: t.stringList({ required: false, description: 'Item kinds: the SKUs (1 to 100).' }),
  minCartValue: t.field({
    type: [CurrencyAmountInput],
    required: false,
    description: 'Smallest subtotal per currency for it to apply.',
  }),
});

/** The v2 body of a standard promotion (only the given fields on an update). */
function standardBody(input: StandardInput): JsonObject {
  const body: JsonObject = { type: 'promotion', ...commonBody(input) };
  const type = input.promotionType;
  if (type != null) {
    const schema: JsonObject = {};
    if (type.startsWith('item_')) {
      schema.targets = judgeSkus(input.targetSkus ?? [], 'input.targetSkus');
    }
    if (type.endsWith('fixed_discount')) {
      schema.currencies = judgeCurrencyAmounts(input.amounts ?? [], 'input.amounts');
    } else {
      if (input.percent == null) {
        throw new BadUserInputError('input.percent is required for a percent promotion', {
          field: 'input.percent',
        });
      }
      schema.percent = judgePercent(input.percent, 'input.percent');
    }
    body.promotion_type = type;
    body.schema = schema;
  }
  if (input.minCartValue != null) {
    body.min_cart_value = judgeCurrencyAmounts(input.minCartValue, 'input.minCartValue', 0);
  }
  return body;
}

// ---- Promotions Builder ---------------------------------------------------------------------

const PromotionLevel = builder.enumType('PromotionLevel', {
  description: 'What a Promotions Builder discount is off.',
  values: {
    CART: { value: 'cart_discount', description: 'The subtotal.' },
    ITEM: { value: 'item_discount', description: 'Each matching line.' },
  } as const,
});

const DiscountMethod = builder.enumType('DiscountMethod', {
  description: 'How a discount is counted.',
  values: {
    PERCENT: { value: 'percent', description: 'A percentage, 0 to 100.' },
    FIXED: { value: 'fixed', description: 'Minor units (per unit for an item discount).' },
  } as const,
});

interface RuleDiscount {
  level: string;
  method: string;
  value: number;
  skus?: string[] | null;
}

const RuleDiscountInput = builder.inputRef<RuleDiscount>('RuleDiscountInput').implement({
  description: 'The one action of a rule promotion.',
  fields: (t) => ({
    level: t.field({ type: PromotionLevel, required: true, description: 'Cart or item.' }),
    method: t.field({ type: DiscountMethod, required: true, description: 'Percent or fixed.' }),
    value: t.float({ required: true, description: 'The percentage, or the minor units.' }),
    skus: t.stringList({ required: false, description: 'Item level: the SKUs discounted.' }),
  }),
});

interface RuleInput extends CommonInput {
  priority?: number | null;
  stackable?: boolean | null;
  overrideStacking?: boolean | null;
  currencies?: string[] | null;
  minCartTotal?: number | null;
  requiredSkus?: string[] | null;
  discount?: RuleDiscount | null;
}

const ruleFields = (t: Field, required: boolean) => ({
  ...commonFields(t, required),
  priority: t.int({ required: false, description: 'Higher applies first (0 to 1,000,000).' }),
  stackable: t.boolean({ required: false, description: 'Lower ones still apply. Default true.' }),
  overrideStacking: t.boolean({ required: false, description: 'Applies after a non-stackable.' }),
  currencies: t.stringList({ required: false, description: 'Carts it applies to; none: any.' }),
  minCartTotal: t.int({ required: false, description: 'Condition: subtotal at least this.' }),
  requiredSkus: t.stringList({ required: false, description: 'Condition: one of these SKUs.' }),
  discount: t.field({
    type: RuleDiscountInput,
    required,
    description: 'The discount; on update, give it to change the rule set (with its conditions).',
  }),
});

function ruleBody(input: RuleInput): JsonObject {
  const body: JsonObject = { type: 'rule_promotion', ...commonBody(input) };
  if (input.priority != null) {
    body.priority =
      input.priority === 0 ? 0 : judgeCount(input.priority, 'input.priority', 1_000_000);
  }
  if (input.stackable != null) body.stackable = input.stackable;
  if (input.overrideStacking != null) body.override_stacking = input.overrideStacking;
  const discount = input.discount;
  if (discount == null) return body;
  const currencies = (input.currencies ?? []).map((c, i) =>
    judgeCurrency(c, `input.currencies[${i}]`),
  );
  if (currencies.length > MAX_CURRENCIES) {
    throw new BadUserInputError(`input.currencies must hold at most ${MAX_CURRENCIES} codes`, {
      field: 'input.currencies',
    });
  }
  const conditions: JsonObject[] = [];
  if (input.minCartTotal != null) {
    const min = judgeAmount(input.minCartTotal, 'input.minCartTotal', 0);
    conditions.push({ strategy: 'cart_total', operator: 'gte', args: [min] });
  }
  if (input.requiredSkus != null) {
    const skus = judgeSkus(input.requiredSkus, 'input.requiredSkus');
    conditions.push({ strategy: 'item_sku', operator: 'in', args: skus });
  }
  const value =
    discount.method === 'percent'
      ? judgePercent(discount.value, 'input.discount.value')
      : judgeAmount(discount.value, 'input.discount.value');
  const action: JsonObject = { strategy: discount.level, args: [discount.method, value] };
  if (discount.skus != null) {
    if (discount.level !== 'item_discount') {
      throw new BadUserInputError('input.discount.skus is for an ITEM discount only', {
        field: 'input.discount.skus',
      });
    }
    const skus = judgeSkus(discount.skus, 'input.discount.skus');
    action.condition = { strategy: 'item_sku', operator: 'in', args: skus };
  }
  body.rule_set = {
    currencies,
    ...(conditions.length === 0
      ? {}
      : {
          rules:
            conditions.length === 1 ? conditions[0] : { strategy: 'and', children: conditions },
        }),
    actions: [action],
  };
  return body;
}

// ---- per engine: create, update, disable, codes ----------------------------------------------

interface EngineWrites<I extends CommonInput> {
  engine: Engine;
  name: 'Promotion' | 'RulePromotion';
  segment: 'promotions' | 'rule-promotions';
  /** The v2 `data.type`. */
  type: 'promotion' | 'rule_promotion';
  fields: (t: Field, required: boolean) => Record<string, unknown>;
  body: (input: I) => JsonObject;
}

function defineEngineWrites<I extends CommonInput>(writes: EngineWrites<I>): void {
  const { engine, name, segment } = writes;
  const Payload = answerPayload<unknown>(`${name}Payload`, {
    description: `The ${engine.Promotions.name} as the write left it.`,
    field: 'promotion',
    type: engine.Promotions.ref,
    about:
      'The promotion; null, with a WRITE_COMMITTED error, when the write happened but its ' +
      'answer was unusable.',
  });
  const ids = {
    promotionId: [idKind(name), 'The promotion'],
  } as const satisfies IdFields<'promotionId'>;
  const read = (response: UpstreamResponse) => engine.Promotions.read(expectResource(response));
  const put = (context: GatewayContext, promotionId: string, data: JsonObject) =>
    writeAnswer(context, { method: 'PUT', segments: [segment, promotionId], body: { data } }, read);

  defineMutation<Answered<unknown>, never, InputFieldMap>(`create${name}`, {
    description: `Creates a promotion (POST /v2/${segment}).`,
    input: {
      description: `A new ${engine.Promotions.name}.`,
      fields: (t) => writes.fields(t, true) as InputFieldMap,
    },
    payload: Payload,
    resolve: (input, context) =>
      writeAnswer(
        context,
        { method: 'POST', segments: [segment], body: { data: writes.body(input as unknown as I) } },
        read,
      ),
  });
  defineMutation<Answered<unknown>, 'promotionId', InputFieldMap>(`update${name}`, {
    description: `Changes a promotion (PUT /v2/${segment}/{id}).`,
    ids,
    input: {
      description: 'What changes; what is not given stays.',
      fields: (t) => writes.fields(t, false) as InputFieldMap,
    },
    payload: Payload,
    resolve: (input, context, { promotionId }) =>
      put(context, promotionId, writes.body(input as unknown as I)),
  });
  defineMutation(`disable${name}`, {
    description: `Disables a promotion (PUT /v2/${segment}/{id} with enabled false).`,
    ids,
    input: { description: 'The promotion to disable.' },
    payload: Payload,
    resolve: (_input, context, { promotionId }) =>
      put(context, promotionId, { type: writes.type, enabled: false }),
  });
  defineDelete(`delete${name}`, {
    description: `Deletes a promotion with its codes (DELETE /v2/${segment}/{id}).`,
    what: 'promotion (with its codes)',
    ids,
    deleted: 'promotionId',
    request: ({ promotionId }) => ({ segments: [segment, promotionId] }),
  });
  defineCodeWrites(name, segment, engine);
}

defineEngineWrites<StandardInput>({
  engine: StandardPromotions,
  name: 'Promotion',
  segment: 'promotions',
  type: 'promotion',
  fields: standardFields,
  body: standardBody,
});

defineEngineWrites<RuleInput>({
  engine: RulePromotions,
  name: 'RulePromotion',
  segment: 'rule-promotions',
  type: 'rule_promotion',
  fields: ruleFields,
  body: ruleBody,
});
