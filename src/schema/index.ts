/**
 * The gateway's schema: importing each domain file registers its types on the builder; this
 * module only imports them, builds the schema once and makes it a Federation v2 subgraph with
 * the domain files' entities.
 */
import { builder } from './builder.ts';
import './scalars.ts';
import './connection.ts';
import './cart.ts';
import './cart-mutations.ts';
import './custom-discount-mutations.ts';
import { AccountEntity } from './account.ts';
import { CustomApiEntity } from './custom-api.ts';
import { CustomApiEntryEntity } from './custom-api-entry.ts';
import { federate } from './federation.ts';
import { FileEntity } from './file.ts';
import { OrderEntity } from './order.ts';
import './customer.ts';

export const schema = federate(builder.toSchema(), [
  OrderEntity,
  AccountEntity,
  FileEntity,
  CustomApiEntity,
  CustomApiEntryEntity,
]);
