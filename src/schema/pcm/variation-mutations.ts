/**
 * Parent products and their children, as the merchandiser makes them: a variation (`Size`)
 * with its options (`S`, `M`), the variations of a parent product, and the build that makes
 * one child product per combination of options (`POST /pcm/products/{id}/build`, a PXM job).
 * Each mutation is one upstream write, so none can half-happen.
 */
import {
  expectResource,
  isJsonObject,
  type JsonObject,
  type UpstreamRequest,
} from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import { type BuilderTypes, builder } from '../builder.ts';
import { idKind, idListInput, judgeIdList } from '../kit/ids.ts';
import { defineMutation, definePayload } from '../kit/mutation.ts';
import { answerPayload, writeAnswer } from '../kit/writes.ts';
import { judgeDescription, judgeName } from './judges.ts';
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

// Variations and their options are not Nodes: their ids are upstream ids only.
const VARIATION = idKind('PcmVariation', false);
const OPTION = idKind('PcmVariationOption', false);
const PRODUCT = idKind('PcmProduct');

defineMutation('createPcmVariation', {
  description: 'Creates a variation (POST /pcm/variations); add its options one by one.',
  input: {
    description: 'A new variation.',
    fields: (t) => ({ name: t.string({ required: true, description: 'Name, e.g. Size.' }) }),
  },
  payload: answerPayload<VariationShape>('CreatePcmVariationPayload', {
    description: 'The variation that was created.',
    field: 'variation',
    type: VariationRef,
  }),
  resolve: (input, context) => {
    const name = judgeName(input.name, 'input.name');
    const request: UpstreamRequest = {
      method: 'POST',
      segments: ['/pcm', 'variations'],
      body: { data: { type: 'product-variation', attributes: { name } } },
    };
    return writeAnswer(context, request, (response) => readVariation(expectResource(response)));
  },
});

const optionPayload = (name: string, description: string) =>
  answerPayload<OptionShape | Promise<OptionShape>>(name, {
    description,
    field: 'option',
    type: OptionRef,
  });

defineMutation('createPcmVariationOption', {
  description: 'Adds an option to a variation (POST /pcm/variations/{id}/options).',
  ids: { variationId: [VARIATION, 'The variation'] },
  input: {
    description: 'A new option of a variation.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Name, e.g. M.' }),
      description: t.string({ required: false, description: 'Description.' }),
    }),
  },
  payload: optionPayload('CreatePcmVariationOptionPayload', 'The option that was created.'),
  resolve: (input, context, { variationId }) => {
    const attributes: JsonObject = { name: judgeName(input.name, 'input.name') };
    if (input.description != null) {
      attributes.description = judgeDescription(input.description, 'input.description');
    }
    const request: UpstreamRequest = {
      method: 'POST',
      segments: ['/pcm', 'variations', variationId, 'options'],
      body: { data: { type: 'product-variation-option', attributes } },
    };
    return writeAnswer(context, request, (response) => readOption(expectResource(response)));
  },
});

/** The product a write changed, read after it (one GET, counted by the query cost). */
const productAfter = <P extends { productId: string }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, P>,
  description: string,
) =>
  t.field({
    type: PcmProducts.ref,
    nullable: true,
    description,
    resolve: (source, _args, context) => PcmProducts.load(context, source.productId),
    extensions: { upstreamCalls: 1 },
  });

const BuildRef = builder.objectRef<{ productId: string; jobId: string; status: string }>(
  'PcmBuildJob',
);
BuildRef.implement({
  description: 'The job that built a parent product’s children.',
  fields: (t) => ({
    jobId: t.exposeID('jobId', { description: 'The PXM job id.' }),
    status: t.exposeString('status', { description: '`success` or `failed` (see /pcm/jobs).' }),
    product: productAfter(t, 'The parent product, whose `children` are now built.'),
  }),
});

const ProductPayload = definePayload<{ productId: string }>('SetPcmProductVariationsPayload', {
  description: 'The parent product with its variations.',
  fields: (t) => ({
    product: productAfter(t, 'The product after the write (read after it).'),
  }),
});

defineMutation('setPcmProductVariations', {
  description:
    'Makes a product a parent with these variations (PUT /pcm/products/{id}/relationships/' +
    'variations; at most 10), replacing any it had. Build its children next.',
  ids: { productId: [PRODUCT, 'The product'] },
  input: {
    description: 'The product and its variations.',
    fields: (t) => ({ variationIds: idListInput(t, VARIATION, 'Its variations (1 to 10)') }),
  },
  payload: ProductPayload,
  resolve: async (input, context, { productId }) => {
    const ids = judgeIdList(input.variationIds, 'input.variationIds', VARIATION, {
      min: 1,
      max: 10,
    });
    await context.write({
      method: 'PUT',
      segments: ['/pcm', 'products', productId, 'relationships', 'variations'],
      body: { data: ids.map((id) => ({ type: 'product-variation', id })) },
    });
    return { productId };
  },
});

const BuildPayload = definePayload<{ job: { productId: string; jobId: string; status: string } }>(
  'BuildPcmChildProductsPayload',
  {
    description: 'The build job.',
    fields: (t) => ({
      job: t.field({ type: BuildRef, description: 'The job.', resolve: (p) => p.job }),
    }),
  },
);

defineMutation('buildPcmChildProducts', {
  description:
    'Builds a parent product’s children, one per combination of its variations’ options ' +
    '(POST /pcm/products/{id}/build).',
  ids: { productId: [PRODUCT, 'The parent product'] },
  input: { description: 'The parent product.' },
  payload: BuildPayload,
  resolve: async (_input, context, { productId }) => {
    const response = await context.write({
      method: 'POST',
      segments: ['/pcm', 'products', productId, 'build'],
    });
    const body = isJsonObject(response.body) ? response.body : {};
    const data = isJsonObject(body.data) ? body.data : {};
    const attributes = isJsonObject(data.attributes) ? data.attributes : {};
    return {
      job: { productId, jobId: text(data.id) ?? '', status: text(attributes.status) ?? 'pending' },
    };
  },
});

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

defineMutation('addPcmOptionModifier', {
  description:
    'Adds a modifier to a variation option (POST /pcm/variations/{v}/options/{o}/modifiers): ' +
    'what the option does to the children built with it. Build (again) to apply it.',
  ids: { variationId: [VARIATION, 'The variation'], optionId: [OPTION, 'The option'] },
  input: {
    description: 'The option and its modifier.',
    fields: (t) => ({
      type: t.field({ type: PcmModifierType, required: true, description: 'What it changes.' }),
      value: t.string({ required: true, description: 'The value, 1-255 characters.' }),
    }),
  },
  payload: optionPayload('AddPcmOptionModifierPayload', 'The option with its new modifier.'),
  extensions: { upstreamCalls: 2 },
  resolve: async (input, context, { variationId, optionId }) => {
    if (!goodModifierValue(input.value)) {
      throw new BadUserInputError(
        'input.value must be 1-255 characters without control characters',
        { field: 'input.value' },
      );
    }
    const option = ['/pcm', 'variations', variationId, 'options', optionId];
    await context.write({
      method: 'POST',
      segments: [...option, 'modifiers'],
      body: {
        data: {
          type: 'product-variation-modifier',
          attributes: { type: input.type, value: input.value },
        },
      },
    });
    // The option is read after the write, in the payload's field (WRITE_COMMITTED if it fails).
    return { answer: async () => readOption(expectResource(await context.get(option))) };
  },
});
