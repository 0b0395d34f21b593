/**
 * A bundle's chosen options, on the way in (`bundleConfiguration` of a product line,
 * cart-lines.ts) and on the way out (`CartItem.bundleConfiguration`, `OrderItem.bundleConfiguration`).
 * The v2 form is `bundle_configuration: { selected_options: { <component>: { <productId>: n } } }`;
 * the GraphQL form is a list of `{ componentKey, productId, quantity }`, which a form builds and
 * reads without dynamic keys.
 */
import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { idInput, idKind, judgeId } from './kit/ids.ts';

/** A catalog product (the shopper's `Product`). */
export const PRODUCT = idKind('Product');

/** Most options one configuration may name (the catalog's bundles have a handful). */
const MAX_OPTIONS = 100;
const MAX_OPTION_QUANTITY = 1_000;
const COMPONENT_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export interface SelectedOptionShape {
  componentKey: string;
  productId: string;
  quantity: number;
}

export interface BundleConfigurationShape {
  selectedOptions: SelectedOptionShape[];
}

const SelectedOptionRef = builder.objectRef<SelectedOptionShape>('BundleSelectedOption').implement({
  description: 'One option chosen for a bundle component.',
  fields: (t) => ({
    componentKey: t.exposeString('componentKey', {
      description: 'The component’s key in the bundle (as `Product.components` names it).',
    }),
    productId: t.exposeID('productId', { description: 'The chosen option product (upstream id).' }),
    quantity: t.exposeInt('quantity', { description: 'Units of that option in one bundle.' }),
  }),
});

export const BundleConfigurationRef = builder
  .objectRef<BundleConfigurationShape>('BundleConfiguration')
  .implement({
    description: 'The options chosen for a bundle line (v2 `bundle_configuration`).',
    fields: (t) => ({
      selectedOptions: t.expose('selectedOptions', {
        type: [SelectedOptionRef],
        description: 'Each chosen option, component by component.',
      }),
    }),
  });

/** `row.bundle_configuration.selected_options` as a list; null when the line is no bundle. */
export function readBundleConfiguration(row: JsonObject): BundleConfigurationShape | null {
  const configuration = row.bundle_configuration;
  if (!isJsonObject(configuration) || !isJsonObject(configuration.selected_options)) return null;
  const selectedOptions: SelectedOptionShape[] = [];
  for (const [componentKey, chosen] of Object.entries(configuration.selected_options)) {
    if (!isJsonObject(chosen)) continue;
    for (const [productId, quantity] of Object.entries(chosen)) {
      if (typeof quantity === 'number' && Number.isInteger(quantity)) {
        selectedOptions.push({ componentKey, productId, quantity });
      }
    }
  }
  return { selectedOptions };
}

const SelectedOptionInput = builder.inputType('BundleSelectedOptionInput', {
  description: 'One option chosen for a bundle component.',
  fields: (t) => ({
    componentKey: t.string({
      required: true,
      description: 'The component’s key in the bundle (as `Product.components` names it).',
    }),
    productId: idInput(t, PRODUCT, 'The option product'),
    quantity: t.int({
      required: true,
      description: `Units of that option in one bundle, 1 to ${MAX_OPTION_QUANTITY}.`,
    }),
  }),
});

export const BundleConfigurationInput = builder.inputType('BundleConfigurationInput', {
  description:
    'The options chosen for a bundle (sent as v2 `bundle_configuration.selected_options`); the ' +
    'upstream judges them against the bundle (a wrong component or option is BAD_USER_INPUT).',
  fields: (t) => ({
    selectedOptions: t.field({
      type: [SelectedOptionInput],
      required: true,
      description: `The chosen options, 1 to ${MAX_OPTIONS}.`,
    }),
  }),
});

interface SelectedOptionGiven {
  componentKey: string;
  productId: string | number;
  quantity: number;
}

/** The v2 `bundle_configuration`, every option judged (before any call). */
export function judgeBundleConfiguration(
  given: { selectedOptions: readonly SelectedOptionGiven[] },
  field: string,
): JsonObject {
  const options = given.selectedOptions;
  if (options.length === 0 || options.length > MAX_OPTIONS) {
    throw new BadUserInputError(`${field}.selectedOptions must list 1 to ${MAX_OPTIONS} options`, {
      field: `${field}.selectedOptions`,
    });
  }
  const selected: Record<string, Record<string, number>> = {};
  options.forEach((option, i) => {
    const at = `${field}.selectedOptions[${i}]`;
    if (!COMPONENT_KEY.test(option.componentKey)) {
      throw new BadUserInputError(`${at}.componentKey must be 1-64 letters, digits, "-" or "_"`, {
        field: `${at}.componentKey`,
      });
    }
    const productId = judgeId(String(option.productId), `${at}.productId`, PRODUCT);
    if (
      !Number.isInteger(option.quantity) ||
      option.quantity < 1 ||
      option.quantity > MAX_OPTION_QUANTITY
    ) {
      throw new BadUserInputError(
        `${at}.quantity must be an integer from 1 to ${MAX_OPTION_QUANTITY}`,
        {
          field: `${at}.quantity`,
        },
      );
    }
    const component = Object.hasOwn(selected, option.componentKey)
      ? (selected[option.componentKey] as Record<string, number>)
      : {};
    if (Object.hasOwn(component, productId)) {
      throw new BadUserInputError(`${at} names an option already chosen for that component`, {
        field: `${at}.productId`,
      });
    }
    component[productId] = option.quantity;
    selected[option.componentKey] = component;
  });
  return { selected_options: selected };
}
