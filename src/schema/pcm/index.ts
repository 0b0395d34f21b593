/**
 * The merchandiser's surface (Product Experience Manager, price books, catalogs, stock):
 * importing this registers its types, connections and mutations on the builder.
 */
import './products.ts';
import './prices.ts';
import './catalogs.ts';
import './stock.ts';
import './pcm-mutations.ts';
import './catalog-mutations.ts';
import './variation-mutations.ts';
