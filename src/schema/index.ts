/**
 * The gateway's schema: importing each domain file registers its types on the builder; this
 * module only imports them, builds the schema once and makes it a Federation v2 subgraph with
 * the described resources' entities (src/schema/resource.ts).
 */
import { builder } from './builder.ts';
import './scalars.ts';
import './connection.ts';
import './cart.ts';
import './cart-mutations.ts';
import './custom-discount-mutations.ts';
import './promotion-cart.ts';
import './promotion-mutations.ts';
import { Accounts } from './account.ts';
import { CustomApis } from './custom-api.ts';
import { Entries } from './custom-api-entry.ts';
import { federate } from './federation.ts';
import { Files } from './file.ts';
import { ExportJobs, Integrations } from './integration.ts';
import './integration-mutations.ts';
import { Orders } from './order.ts';
import { RulePromotions, StandardPromotions } from './promotion.ts';
import { resourceEntities } from './resource.ts';
import './customer.ts';
import './account-member.ts';
import './account-viewer.ts';
import './pcm/index.ts';
import './catalog/views.ts';
import './order-payment.ts';
import './integration-logs.ts';
import './catalog/cart-product-items.ts';
import { CatalogNodes, Hierarchies, Products } from './catalog/storefront.ts';

export const schema = federate(
  builder.toSchema(),
  resourceEntities([
    Orders,
    Accounts,
    Files,
    CustomApis,
    Entries,
    StandardPromotions.Promotions,
    RulePromotions.Promotions,
    Integrations,
    ExportJobs,
    Products,
    Hierarchies,
    CatalogNodes,
  ]),
);
