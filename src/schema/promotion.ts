/**
 * Promotions of both engines as described resources: `Promotion` (`/v2/promotions`) and
 * `RulePromotion` (`/v2/rule-promotions`, the Promotions Builder), each with its codes and its
 * usages as connections. One description per engine and one builder: the two differ only in
 * their path, names and own fields. Usages sort and range-filter on `usedOn` upstream; a
 * usage's creation time is its time of use, so the keyset planner walks them by createdAt past
 * 10,000 as it walks orders. Store data: client_credentials only. Writes: promotion-mutations.ts.
 */

import { builder } from './builder.ts';
import { type FilterDescription, STANDARD_FILTERS } from './connection.ts';
import { defineResource, field } from './resource.ts';
import type { FieldDescriptions } from './resource-fields.ts';

const promotionIdParam = { promotionId: 'Upstream id of the promotion.' };

/** Usage filters: the standard ones, `usedOn` ranges and `code`, as the upstream documents. */
const USAGE_FILTERS: Readonly<Record<string, FilterDescription>> = {
  ...STANDARD_FILTERS,
  usedOn: {
    attr: 'used_on',
    type: 'DateTime',
    ops: ['eq', 'gt', 'ge', 'lt', 'le'],
    description: 'On the time of use.',
  },
  code: { attr: 'code', type: 'String', ops: ['eq'], description: 'On the code (any case).' },
};

const COMMON_FIELDS = {
  name: field.string('Name shown to merchandisers.'),
  description: field.string('What the promotion is for.', { nullable: true }),
  enabled: field.boolean('Whether it may apply at all.'),
  automatic: field.boolean('Whether it applies to every cart without a code.'),
  start: field.dateTime('When it starts to apply.'),
  end: field.dateTime('When it stops applying.'),
} satisfies FieldDescriptions;

interface Engine<F extends FieldDescriptions> {
  name: 'Promotion' | 'RulePromotion';
  path: '/v2/promotions' | '/v2/rule-promotions';
  singular: string;
  plural: string;
  lookup: string;
  listField: string;
  connection: string;
  description: string;
  fields: F;
}

/** Defines one engine's promotion, code and usage resources. */
function defineEngine<F extends FieldDescriptions>(engine: Engine<F>) {
  const Codes = defineResource({
    name: `${engine.name}Code`,
    singular: 'code',
    plural: 'codes',
    label: 'promotion_code',
    description: `A code of a ${engine.singular}, with the uses it has left.`,
    path: `${engine.path}/{promotionId}/codes`,
    params: promotionIdParam,
    body: 'flat',
    timestamps: 'meta.timestamps',
    readableBy: ['client_credentials'],
    fields: {
      promotionId: field.param('promotionId', 'Upstream id of its promotion.'),
      code: field.string('The code shoppers type (matched in any case).'),
      usesLeft: field.int('Uses left; null: unlimited.', { from: 'uses', nullable: true }),
      maxUses: field.int('Uses it was created with; null: unlimited.', { nullable: true }),
      maxUsesPerShopper: field.int('Uses one customer may make; null: no such limit.', {
        from: 'max_uses_per_shopper.max_uses',
        nullable: true,
      }),
    },
    list: {
      description: `The codes of one ${engine.singular}.`,
      connection: `${engine.connection}-codes`,
      paging: 'keyset',
      offsetLimit: 'soft',
    },
  });
  const Usages = defineResource({
    name: `${engine.name}Usage`,
    singular: 'usage',
    plural: 'usages',
    label: 'promotion_usage',
    description: `One use of a code of a ${engine.singular}: the order it discounted and who.`,
    path: `${engine.path}/{promotionId}/usages`,
    params: promotionIdParam,
    body: 'flat',
    timestamps: 'meta.timestamps',
    readableBy: ['client_credentials'],
    fields: {
      promotionId: field.param('promotionId', 'Upstream id of its promotion.'),
      code: field.string('The code used.'),
      codeId: field.id('Upstream id of the code.', { nullable: true }),
      orderId: field.id('Upstream id of the order it discounted.'),
      timesUsed: field.int('Uses it counts for.'),
      usedOn: field.dateTime('When it was used (checkout); also its createdAt.'),
      customerId: field.id('The customer, when the order was theirs.', { nullable: true }),
      customerEmail: field.string('The email of the order; null once anonymised.', {
        nullable: true,
      }),
      anonymized: field.boolean('Whether the email was removed on request.'),
    },
    list: {
      description: `The usages of one ${engine.singular}.`,
      connection: `${engine.connection}-usages`,
      paging: 'keyset',
      offsetLimit: 'soft',
      filters: USAGE_FILTERS,
    },
  });
  const Promotions = defineResource({
    name: engine.name,
    singular: engine.singular,
    plural: engine.plural,
    description: engine.description,
    path: engine.path,
    body: 'flat',
    timestamps: 'meta.timestamps',
    readableBy: ['client_credentials'],
    fields: { ...COMMON_FIELDS, ...engine.fields },
    extraFields: (t) => ({
      codes: Codes.connectionField(t, {
        description: 'Its codes (one upstream call per page).',
        params: (promotion) => ({ promotionId: promotion.upstreamId }),
      }),
      usages: Usages.connectionField(t, {
        description:
          'Its usages, one per order that used a code; sortKey CREATED_AT orders them by ' +
          'time of use, and `filter.usedOn` takes ranges.',
        params: (promotion) => ({ promotionId: promotion.upstreamId }),
      }),
    }),
    lookup: { field: engine.lookup },
    list: {
      field: engine.listField,
      description: `The ${engine.plural} of the store.`,
      connection: engine.connection,
      paging: 'keyset',
      offsetLimit: 'soft',
    },
    entity: true,
  });
  return { Promotions, Codes, Usages };
}

/** What a standard promotion takes off: written and read back as the same enum. */
export const PromotionType = builder.enumType('PromotionType', {
  description: 'What a standard promotion takes off.',
  values: {
    FIXED_DISCOUNT: { value: 'fixed_discount', description: 'An amount off the subtotal.' },
    PERCENT_DISCOUNT: { value: 'percent_discount', description: 'A percentage of the subtotal.' },
    ITEM_FIXED_DISCOUNT: {
      value: 'item_fixed_discount',
      description: 'An amount off each unit of the target SKUs.',
    },
    ITEM_PERCENT_DISCOUNT: {
      value: 'item_percent_discount',
      description: 'A percentage off the lines of the target SKUs.',
    },
  } as const,
});

export const StandardPromotions = defineEngine({
  name: 'Promotion',
  path: '/v2/promotions',
  singular: 'promotion',
  plural: 'promotions',
  lookup: 'promotion',
  listField: 'promotions',
  connection: 'promotions',
  description:
    'A standard promotion (`/v2/promotions`): a fixed or percent discount off the cart or ' +
    'off the lines of some SKUs, applied by a code or automatically.',
  fields: {
    promotionType: field.enum(PromotionType, 'What it takes off, as written.'),
    schema: field.json('The discount as the v2 API holds it (`currencies`, `percent`, `targets`).'),
    minCartValue: field.json('Smallest subtotal per currency, when one is set.', {
      read: (row) =>
        Array.isArray(row.min_cart_value) ? { currencies: row.min_cart_value } : null,
      nullable: true,
    }),
  },
});

export const RulePromotions = defineEngine({
  name: 'RulePromotion',
  path: '/v2/rule-promotions',
  singular: 'rule promotion',
  plural: 'rule promotions',
  lookup: 'rulePromotion',
  listField: 'rulePromotions',
  connection: 'rule-promotions',
  description:
    'A Promotions Builder promotion (`/v2/rule-promotions`): a rule set (cart subtotal and ' +
    'SKU conditions) with one cart or item discount, applied by priority with stacking rules.',
  fields: {
    priority: field.int('Higher applies first.'),
    stackable: field.boolean('Whether lower-priority promotions still apply after it.'),
    overrideStacking: field.boolean('Whether it applies even after a non-stackable one.'),
    ruleSet: field.json('The rule set as the v2 API holds it (`rules`, `actions`, `currencies`).'),
  },
});
