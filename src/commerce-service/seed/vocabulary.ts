/** The words demo records are drawn from: shoppers' names, their cities, the shop's products. */

export const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
];
export const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen'];
export const CITIES: readonly [string, string, string][] = [
  ['Portland', 'OR', 'US'],
  ['Austin', 'TX', 'US'],
  ['Leeds', 'West Yorkshire', 'GB'],
  ['Lyon', 'Auvergne-Rhône-Alpes', 'FR'],
];
export const PRODUCTS: readonly [string, string, number][] = [
  ['Espresso beans 1 kg', 'COF-ESP-1K', 2400],
  ['Pour-over kettle', 'KET-PO-01', 5900],
  ['Ceramic mug', 'MUG-CER-03', 1500],
  ['Paper filters (100)', 'FIL-100', 650],
  ['Hand grinder', 'GRI-HND-02', 8900],
  ['Gift card', 'GIFT-25', 2500],
];
