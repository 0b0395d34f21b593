/**
 * The demo store's Custom APIs: their names, how many entries each gets, how an entry's
 * attributes are drawn, and field definitions every seeded entry satisfies.
 */
import type { Random } from './random.ts';
import { FIRST_NAMES, PRODUCTS } from './vocabulary.ts';

export interface SeedCustomApi {
  name: string;
  description: string;
  slug: string;
  apiType: string;
  entries: number;
  attributes: (random: Random, index: number) => Record<string, unknown>;
  /** Field definitions that every seeded entry satisfies (custom-fields.ts). */
  fields: readonly SeedField[];
}

interface SeedField {
  name: string;
  slug: string;
  field_type: 'string' | 'integer' | 'float' | 'boolean';
  description: string;
  validation: Record<string, unknown>;
}

const field = (
  slug: string,
  fieldType: SeedField['field_type'],
  description: string,
  rules: Record<string, unknown> = {},
): SeedField => ({
  name: slug.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
  slug,
  field_type: fieldType,
  description,
  validation: {
    allow_null_values: false,
    immutable: false,
    ...(fieldType === 'string' ? { unique: 'no', unique_case_insensitivity: false } : {}),
    ...rules,
  },
});

export const CUSTOM_APIS: readonly SeedCustomApi[] = [
  {
    name: 'Wishlists',
    description: 'Saved products per shopper',
    slug: 'wishlists',
    apiType: 'wishlists_ext',
    entries: 40,
    attributes: (random, i) => ({
      name: `${random.pick(FIRST_NAMES)}'s wishlist ${i + 1}`,
      items_count: random.int(0, 12),
      is_public: random.next() < 0.5,
    }),
    fields: [
      field('name', 'string', 'Name the shopper gave the list.', {
        min_length: 1,
        max_length: 255,
      }),
      field('items_count', 'integer', 'Products saved in the list.', { min_value: 0 }),
      field('is_public', 'boolean', 'Whether other shoppers may see the list.'),
    ],
  },
  {
    name: 'Product reviews',
    description: 'Ratings and reviews written by shoppers',
    slug: 'product-reviews',
    apiType: 'product_reviews_ext',
    entries: 60,
    attributes: (random) => {
      const [name, sku] = random.pick(PRODUCTS);
      return {
        product_sku: sku,
        rating: random.int(1, 5),
        title: `About the ${name.toLowerCase()}`,
        body: random.pick(['Love it.', 'Does the job.', 'Arrived late but works.', 'Meh.']),
        verified_purchase: random.next() < 0.8,
      };
    },
    fields: [
      field('product_sku', 'string', 'SKU of the reviewed product.', { min_length: 1 }),
      field('rating', 'integer', 'Stars from 1 to 5.', { min_value: 1, max_value: 5 }),
      field('title', 'string', 'Headline of the review.', { max_length: 255 }),
      field('body', 'string', 'Text of the review.'),
      field('verified_purchase', 'boolean', 'Whether the reviewer bought the product.'),
    ],
  },
  {
    name: 'Loyalty points',
    description: 'Points balance per customer',
    slug: 'loyalty-points',
    apiType: 'loyalty_points_ext',
    entries: 25,
    attributes: (random, i) => ({
      customer_email: `member${i + 1}@example.com`,
      points: random.int(0, 5000),
      tier: random.pick(['bronze', 'silver', 'gold']),
    }),
    fields: [
      field('customer_email', 'string', 'Email of the member; one balance per member.', {
        unique: 'yes',
        unique_case_insensitivity: true,
        immutable: true,
      }),
      field('points', 'integer', 'Current points balance.', { min_value: 0 }),
      field('tier', 'string', 'Membership tier.', { regex: '^(bronze|silver|gold)$' }),
    ],
  },
];
