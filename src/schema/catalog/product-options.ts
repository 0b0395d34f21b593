/**
 * A product page's pickers, read from what the product's own answer carries (no call): a
 * parent's `options` (`meta.variations`) and `variantBySelectedOptions` (walking
 * `meta.variation_matrix`, then one batched read of the chosen child), a child's
 * `selectedOptions` (`meta.child_variations`), a bundle's `components`
 * (`attributes.components`, each option's product from `include=component_products` when the
 * answer carried it, else one batched read per 100), and the images as a browser loads them
 * (`url` is the file's public `link.href`).
 */
import { includedOf, isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import { builder } from '../builder.ts';
import { Files } from '../file.ts';
import type { ProductShape } from './product-fields.ts';
import { Products } from './storefront.ts';

interface OptionShape {
  name: string;
  values: string[];
}
interface SelectedShape {
  name: string;
  value: string;
}

const objects = (value: unknown): JsonObject[] =>
  Array.isArray(value) ? value.filter(isJsonObject) : [];
const metaOf = (product: ProductShape): JsonObject =>
  isJsonObject(product.row.meta) ? product.row.meta : {};
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** A parent's variations: each with its options, in the upstream's order. */
function variationsOf(product: ProductShape) {
  return objects(metaOf(product).variations).flatMap((variation) => {
    const name = text(variation.name);
    if (name === undefined) return [];
    const options = objects(variation.options).flatMap((o) => {
      const id = text(o.id);
      const value = text(o.name);
      return id === undefined || value === undefined ? [] : [{ id, value }];
    });
    return [{ name, options }];
  });
}

const OptionRef = builder.objectRef<OptionShape>('ProductOption').implement({
  description: 'One choice a shopper makes on a variation product (Size), with its values.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The variation, e.g. Size.' }),
    values: t.exposeStringList('values', { description: 'Its options, e.g. S, M, L.' }),
  }),
});

const SelectedOptionRef = builder.objectRef<SelectedShape>('SelectedOption').implement({
  description: 'The option a child product stands for in one variation (Size: M).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The variation.' }),
    value: t.exposeString('value', { description: 'The option.' }),
  }),
});

const SelectedOptionInput = builder.inputType('SelectedOptionInput', {
  description: 'A shopper’s choice in one variation.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The variation, e.g. Size.' }),
    value: t.string({ required: true, description: 'The option, e.g. M.' }),
  }),
});

interface ComponentOptionShape {
  productId: string;
  quantity: number;
  min: number | null;
  max: number | null;
  isDefault: boolean;
  sortOrder: number | null;
  bundle: ProductShape;
}
interface ComponentShape {
  key: string;
  name: string;
  min: number | null;
  max: number | null;
  sortOrder: number | null;
  options: ComponentOptionShape[];
}

const int = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) ? value : null;

const ComponentOptionRef = builder
  .objectRef<ComponentOptionShape>('BundleComponentOption')
  .implement({
    description: 'A product a shopper may choose for a bundle’s component.',
    fields: (t) => ({
      productId: t.exposeID('productId', { description: 'The product (upstream id).' }),
      product: t.field({
        type: Products.ref,
        nullable: true,
        description:
          'The product, as the caller’s catalog shows it; null when it is not in it. Included ' +
          'with the bundle when it was read with its components, else one call per 100.',
        resolve: async (option, _args, context) => {
          const row = includedOf(option.bundle.row, option.productId);
          if (row !== undefined) return Products.read(row);
          return Products.load(context, option.productId);
        },
        extensions: { upstreamCalls: 1 / 100 },
      }),
      quantity: t.exposeInt('quantity', { description: 'Units of it per bundle.' }),
      min: t.exposeInt('min', { nullable: true, description: 'Fewest units a shopper may pick.' }),
      max: t.exposeInt('max', { nullable: true, description: 'Most units a shopper may pick.' }),
      isDefault: t.exposeBoolean('isDefault', {
        description: 'Chosen unless the shopper changes it.',
      }),
      sortOrder: t.exposeInt('sortOrder', { nullable: true, description: 'Display order.' }),
    }),
  });

const ComponentRef = builder.objectRef<ComponentShape>('BundleComponent').implement({
  description: 'One part of a bundle: how many of its options a shopper picks, and which.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Its key in the bundle (the cart names it).' }),
    name: t.exposeString('name', { description: 'Its name, e.g. “Your tee”.' }),
    min: t.exposeInt('min', { nullable: true, description: 'Fewest options to pick.' }),
    max: t.exposeInt('max', { nullable: true, description: 'Most options to pick.' }),
    sortOrder: t.exposeInt('sortOrder', { nullable: true, description: 'Display order.' }),
    options: t.field({
      type: [ComponentOptionRef],
      resolve: (c) => c.options,
      description: 'The products to pick from, in display order.',
    }),
  }),
});

function componentsOf(product: ProductShape): ComponentShape[] {
  const attributes = isJsonObject(product.row.attributes) ? product.row.attributes : {};
  const components = isJsonObject(attributes.components) ? attributes.components : {};
  const list = Object.entries(components).flatMap(([key, value]) => {
    if (!isJsonObject(value)) return [];
    const options = objects(value.options).flatMap((o) => {
      const productId = text(o.id);
      if (productId === undefined) return [];
      return [
        {
          productId,
          quantity: int(o.quantity) ?? 1,
          min: int(o.min),
          max: int(o.max),
          isDefault: o.default === true,
          sortOrder: int(o.sort_order),
          bundle: product,
        },
      ];
    });
    options.sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));
    return [
      {
        key,
        name: text(value.name) ?? key,
        min: int(value.min),
        max: int(value.max),
        sortOrder: int(value.sort_order),
        options,
      },
    ];
  });
  return list.sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));
}

builder.objectFields(Products.ref, (t) => ({
  options: t.field({
    type: [OptionRef],
    description:
      'A parent product’s variations with their options (the picker); empty for any other ' +
      'product. No upstream call.',
    resolve: (product) =>
      variationsOf(product).map((v) => ({ name: v.name, values: v.options.map((o) => o.value) })),
  }),
  selectedOptions: t.field({
    type: [SelectedOptionRef],
    description: 'A child product’s option in each variation; empty for any other product.',
    resolve: (product) =>
      objects(metaOf(product).child_variations).flatMap((v) => {
        const name = text(v.name);
        const value = isJsonObject(v.option) ? text(v.option.name) : undefined;
        return name === undefined || value === undefined ? [] : [{ name, value }];
      }),
  }),
  variants: Products.connectionField(t, {
    description:
      'A parent product’s children, one per combination of options (`selectedOptions` on ' +
      'each); empty for any other product.',
    connection: 'catalog-product-variants',
    at: {
      path: '/catalog/products/{productId}/relationships/children',
      params: (product) => ({ productId: product.upstreamId }),
    },
  }),
  variantBySelectedOptions: t.field({
    type: Products.ref,
    nullable: true,
    description:
      'The child a choice of one option per variation stands for (through the parent’s ' +
      'variation matrix, which came with it); null when that combination has no child in the ' +
      'caller’s catalog. An option name the product does not have, or a missing one, is ' +
      'BAD_USER_INPUT. One batched read of the child.',
    args: {
      selectedOptions: t.arg({
        type: [SelectedOptionInput],
        required: true,
        description: 'One option per variation (`options` names them).',
      }),
    },
    resolve: (product, args, context) => {
      const variations = variationsOf(product);
      if (variations.length === 0) {
        throw new BadUserInputError('selectedOptions: this product has no options', {
          field: 'selectedOptions',
        });
      }
      const chosen = new Map<string, string>();
      for (const choice of args.selectedOptions) {
        if (!variations.some((v) => v.name === choice.name)) {
          throw new BadUserInputError(
            `selectedOptions: no option "${choice.name.slice(0, 100)}" (options: ${variations.map((v) => v.name).join(', ')})`,
            { field: 'selectedOptions' },
          );
        }
        if (chosen.has(choice.name)) {
          throw new BadUserInputError(`selectedOptions: "${choice.name}" given twice`, {
            field: 'selectedOptions',
          });
        }
        chosen.set(choice.name, choice.value);
      }
      const missing = variations.filter((v) => !chosen.has(v.name)).map((v) => v.name);
      if (missing.length > 0) {
        throw new BadUserInputError(`selectedOptions: choose ${missing.join(', ')} too`, {
          field: 'selectedOptions',
        });
      }
      // The matrix nests one level per variation, in the variations' order.
      let cell: unknown = metaOf(product).variation_matrix;
      for (const variation of variations) {
        const option = variation.options.find((o) => o.value === chosen.get(variation.name));
        if (option === undefined || !isJsonObject(cell)) return null;
        cell = cell[option.id];
      }
      return typeof cell === 'string' ? Products.load(context, cell) : null;
    },
    extensions: { upstreamCalls: 1 / 100 },
  }),
  components: t.field({
    type: [ComponentRef],
    description:
      'A bundle’s components, each with its quantity bounds and the products to pick from; ' +
      'empty for any other product. No upstream call (the options’ products: see `product`).',
    resolve: (product) => componentsOf(product),
  }),
  images: t.field({
    type: [Files.ref],
    description:
      'The main image first, then the product’s other image files (included with it: no ' +
      'further call). Each `url` loads without a token.',
    resolve: (product) => {
      const ids = [
        ...(product.mainImageId === null ? [] : [product.mainImageId]),
        ...product.fileIds,
      ];
      return [...new Set(ids)].flatMap((id) => {
        const file = includedOf(product.row, id);
        if (file === undefined) return [];
        const mime = text(file.mime_type);
        return mime === undefined || mime.startsWith('image/') ? [Files.read(file)] : [];
      });
    },
  }),
}));
