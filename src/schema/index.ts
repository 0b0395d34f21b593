/**
 * The gateway's schema: importing each domain file registers its types on the builder; this
 * module only imports them and builds the schema once.
 */
import { builder } from './builder.ts';
import './scalars.ts';
import './connection.ts';
import './cart.ts';
import './custom-api-entry.ts';
import './custom-api.ts';
import './order.ts';
import './file.ts';
import './account.ts';
import './customer.ts';

export const schema = builder.toSchema();
