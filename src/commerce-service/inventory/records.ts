/**
 * Stock and stock-transaction rows as SQLite keeps them: their own module, read by stock.ts
 * (which moves stock) and present.ts (which shows it) without either importing the other.
 */

export type StockAction = 'increment' | 'decrement' | 'allocate' | 'deallocate' | 'set';
export const STOCK_ACTIONS: readonly StockAction[] = [
  'increment',
  'decrement',
  'allocate',
  'deallocate',
  'set',
];

export interface StockRow {
  store_id: string;
  product_id: string;
  stock_id: string;
  total: number;
  available: number;
  allocated: number;
  created_at: string;
  updated_at: string;
}

export interface TransactionRow {
  id: string;
  store_id: string;
  product_id: string;
  action: StockAction;
  quantity: number;
  created_at: string;
}
