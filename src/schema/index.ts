/**
 * The gateway's schema: importing each domain file registers its types on the builder; this
 * module only imports them, builds the schema once and makes it a Federation v2 subgraph with
 * the entities the resource descriptions declare (`entity: true`, src/schema/resource.ts).
 */
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.ts';
import { inContextDirective } from './in-context.ts';
import './scalars.ts';
import './connection.ts';
import './cart.ts';
import './cart-mutations.ts';
import './custom-discount-mutations.ts';
import './promotion-cart.ts';
import './promotion-mutations.ts';
import './account.ts';
import './custom-api.ts';
import './custom-api-entry.ts';
import { federate } from './federation.ts';
import './file.ts';
import './integration.ts';
import './integration-mutations.ts';
import './order.ts';
import './promotion.ts';
import { describedEntities } from './resource.ts';
import './customer.ts';
import './account-member.ts';
import './account-viewer.ts';
import './pcm/index.ts';
import './catalog/views.ts';
import './catalog/search.ts';
import './catalog/product-options.ts';
import './order-payment.ts';
import './integration-logs.ts';
import './catalog/cart-product-items.ts';
import './catalog/storefront.ts';
import './cart-lines.ts';
import './addresses.ts';
import './account-signup.ts';

export const schema = federate(
  builder.toSchema({ directives: [...specifiedDirectives, inContextDirective] }),
  describedEntities(),
);
