/**
 * The merchandiser's surface (Product Experience Manager, price books, catalogs, stock):
 * importing this registers its types, connections and mutations on the builder.
 */
import './products.ts';
