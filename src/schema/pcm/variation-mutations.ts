/**
 * Parent products and their children, as the merchandiser makes them: a variation (`Size`)
 * with its options (`S`, `M`), the variations of a parent product, and the build that makes
 * one child product per combination of options (`POST /pcm/products/{id}/build`, a PXM job).
 * Each mutation is one upstream write, so none can half-happen.
 */
import { expectResource, isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import { builder } from '../builder.ts';
import { judgeUuid } from '../rows.ts';
import { judgeDescription, judgeIds, judgeName } from './judges.ts';
import { PcmProducts } from './products.ts';

interface OptionShape {
  upstreamId: string;
  name: string;
  description: string | null;
}
interface VariationShape {
  upstreamId: string;
  name: string;
  options: OptionShape[];
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function readOption(row: JsonObject): OptionShape {
  const attributes = isJsonObject(row.attributes) ? row.attributes : row;
  return {
    upstreamId: String(row.id),
    name: text(attributes.name) ?? '',
    description: text(attributes.description) || null,
  };
}

function readVariation(row: JsonObject): VariationShape {
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  const options = isJsonObject(row.meta) && Array.isArray(row.meta.options) ? row.meta.options : [];
  return {
    upstreamId: String(row.id),
    name: text(attributes.name) ?? '',
    options: options.filter(isJsonObject).map(readOption),
  };
}

const OptionRef = builder.objectRef<OptionShape>('PcmVariationOption').implement({
  description: 'One option of a variation (`M` of `Size`).',
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'The option id upstream.' }),
    name: t.exposeString('name', { description: 'Name.' }),
    description: t.exposeString('description', { nullable: true, description: 'Description.' }),
  }),
});

const VariationRef = builder.objectRef<VariationShape>('PcmVariation').implement({
  description: 'A variation of parent products (`Size`), with its options.',
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'The variation id upstream.' }),
    name: t.exposeString('name', { description: 'Name.' }),
    options: t.field({ type: [OptionRef], resolve: (v) => v.options, description: 'Options.' }),
  }),
});

builder.mutationField('createPcmVariation', (t) =>
  t.field({
    type: VariationRef,
    description: 'Creates a variation (POST /pcm/variations); add its options one by one.',
    args: { name: t.arg.string({ required: true, description: 'Name, e.g. Size.' }) },
    resolve: async (_root, args, context) => {
      const name = judgeName(args.name, 'name');
      const response = await context.write({
        method: 'POST',
        segments: ['/pcm', 'variations'],
        body: { data: { type: 'product-variation', attributes: { name } } },
      });
      return readVariation(expectResource(response));
    },
  }),
);

builder.mutationField('createPcmVariationOption', (t) =>
  t.field({
    type: OptionRef,
    description: 'Adds an option to a variation (POST /pcm/variations/{id}/options).',
    args: {
      variationId: t.arg.id({ required: true, description: 'The variation (uuid).' }),
      name: t.arg.string({ required: true, description: 'Name, e.g. M.' }),
      description: t.arg.string({ required: false, description: 'Description.' }),
    },
    resolve: async (_root, args, context) => {
      const variationId = judgeUuid(String(args.variationId), 'variationId');
      const attributes: JsonObject = { name: judgeName(args.name, 'name') };
      if (args.description != null) {
        attributes.description = judgeDescription(args.description, 'description');
      }
      const response = await context.write({
        method: 'POST',
        segments: ['/pcm', 'variations', variationId, 'options'],
        body: { data: { type: 'product-variation-option', attributes } },
      });
      return readOption(expectResource(response));
    },
  }),
);

const BuildRef = builder.objectRef<{ productId: string; jobId: string; status: string }>(
  'PcmBuildJob',
);
BuildRef.implement({
  description: 'The job that built a parent product’s children.',
  fields: (t) => ({
    jobId: t.exposeID('jobId', { description: 'The PXM job id.' }),
    status: t.exposeString('status', { description: '`success` or `failed` (see /pcm/jobs).' }),
    product: t.field({
      type: PcmProducts.ref,
      nullable: true,
      description: 'The parent product, whose `children` are now built.',
      resolve: (job, _args, context) => PcmProducts.load(context, job.productId),
      extensions: { upstreamCalls: 1 },
    }),
  }),
});

builder.mutationField('setPcmProductVariations', (t) =>
  t.field({
    type: PcmProducts.ref,
    nullable: true,
    description:
      'Makes a product a parent with these variations (PUT /pcm/products/{id}/relationships/' +
      'variations; at most 10), replacing any it had. Build its children next.',
    args: {
      productId: t.arg.id({ required: true, description: 'The product (uuid).' }),
      variationIds: t.arg.idList({ required: true, description: 'Its variations (uuids).' }),
    },
    resolve: async (_root, args, context) => {
      const productId = judgeUuid(String(args.productId), 'productId');
      const ids = judgeIds(args.variationIds.map(String), 'variationIds', 10, 1);
      await context.write({
        method: 'PUT',
        segments: ['/pcm', 'products', productId, 'relationships', 'variations'],
        body: { data: ids.map((id) => ({ type: 'product-variation', id })) },
      });
      return PcmProducts.load(context, productId);
    },
  }),
);

builder.mutationField('buildPcmChildProducts', (t) =>
  t.field({
    type: BuildRef,
    description:
      'Builds a parent product’s children, one per combination of its variations’ options ' +
      '(POST /pcm/products/{id}/build).',
    args: { productId: t.arg.id({ required: true, description: 'The parent product (uuid).' }) },
    resolve: async (_root, args, context) => {
      const productId = judgeUuid(String(args.productId), 'productId');
      const response = await context.write({
        method: 'POST',
        segments: ['/pcm', 'products', productId, 'build'],
      });
      const body = isJsonObject(response.body) ? response.body : {};
      const data = isJsonObject(body.data) ? body.data : {};
      const attributes = isJsonObject(data.attributes) ? data.attributes : {};
      return {
        productId,
        jobId: text(data.id) ?? '',
        status: text(attributes.status) ?? 'pending',
      };
    },
  }),
);

const MODIFIED = ['name', 'description', 'sku', 'slug', 'upc_ean', 'mpn', 'external_ref'];
const PcmModifierType = builder.enumType('PcmOptionModifierType', {
  description:
    'How an option changes the child products built with it: a field of the parent set to, ' +
    'appended or prepended with `value` (`SKU_APPEND` "-M" makes TEE-1 into TEE-1-M).',
  values: Object.fromEntries(
    MODIFIED.flatMap((field) =>
      ['equals', 'append', 'prepend'].map((how) => [
        `${field}_${how}`.toUpperCase(),
        { value: `${field}_${how}`, description: `The child's ${field}: ${how} value.` },
      ]),
    ),
  ),
});

/** 1-255 characters, none of them a control character. */
const goodModifierValue = (value: string) =>
  value.length >= 1 && value.length <= 255 && ![...value].some((c) => c.charCodeAt(0) < 32);

builder.mutationField('addPcmOptionModifier', (t) =>
  t.field({
    type: OptionRef,
    description:
      'Adds a modifier to a variation option (POST /pcm/variations/{v}/options/{o}/modifiers): ' +
      'what the option does to the children built with it. Build (again) to apply it.',
    args: {
      variationId: t.arg.id({ required: true, description: 'The variation (uuid).' }),
      optionId: t.arg.id({ required: true, description: 'The option (uuid).' }),
      type: t.arg({ type: PcmModifierType, required: true, description: 'What it changes.' }),
      value: t.arg.string({ required: true, description: 'The value, 1-255 characters.' }),
    },
    resolve: async (_root, args, context) => {
      const variationId = judgeUuid(String(args.variationId), 'variationId');
      const optionId = judgeUuid(String(args.optionId), 'optionId');
      if (!goodModifierValue(args.value)) {
        throw new BadUserInputError('value must be 1-255 characters without control characters', {
          field: 'value',
        });
      }
      const option = ['/pcm', 'variations', variationId, 'options', optionId];
      await context.write({
        method: 'POST',
        segments: [...option, 'modifiers'],
        body: {
          data: {
            type: 'product-variation-modifier',
            attributes: { type: args.type, value: args.value },
          },
        },
      });
      return readOption(expectResource(await context.get(option)));
    },
    extensions: { upstreamCalls: 2 },
  }),
);
