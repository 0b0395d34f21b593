/**
 * A Promotions Builder `rule_set`, the documented subset this service runs:
 *
 * - `rules`: `{strategy:"cart_total", operator:"gte", args:[<minor units>]}`,
 *   `{strategy:"item_sku", operator:"in", args:[<sku>…]}`, or `{strategy:"and", children:[…]}`
 *   of those (at most one of each);
 * - `actions`: exactly one, `{strategy:"cart_discount"|"item_discount",
 *   args:["percent"|"fixed", <value>], condition?:{strategy:"item_sku",operator:"in",args}}`
 *   (the condition picks an item discount's lines);
 * - `currencies`: the carts it applies to, and the currency of its fixed amounts; absent: any.
 *
 * Anything else is a 400 naming the path, so a rule this service would not run is never stored.
 */
import { badRequest } from '../errors.ts';
import { MAX_AMOUNT } from '../money.ts';
import { isObject, type JsonObject } from '../request-body.ts';
import { MAX_CURRENCIES, readCurrency, readPercent, readSkus } from './bodies.ts';
import { ANY_CURRENCY, type Offer } from './offer.ts';

interface Conditions {
  minTotal: number | null;
  skus: string[] | null;
}

function readObjectAt(value: unknown, source: string): JsonObject {
  if (!isObject(value)) throw badRequest(`${source} must be an object.`, source);
  return value;
}

function readArgs(rule: JsonObject, source: string): unknown[] {
  if (!Array.isArray(rule.args)) throw badRequest(`${source}.args must be a list.`, source);
  return rule.args;
}

function readRule(value: unknown, source: string, into: Conditions, depth: number): void {
  const rule = readObjectAt(value, source);
  const strategy = rule.strategy;
  if (strategy === 'and' && depth === 0) {
    const children = rule.children;
    if (!Array.isArray(children) || children.length === 0 || children.length > 2) {
      throw badRequest(`${source}.children must hold 1 or 2 rules.`, `${source}.children`);
    }
    children.forEach((child, i) => {
      readRule(child, `${source}.children[${i}]`, into, depth + 1);
    });
    return;
  }
  if (strategy === 'cart_total') {
    if (rule.operator !== 'gte' || into.minTotal !== null) {
      throw badRequest(`${source}: cart_total takes operator "gte", once.`, `${source}.operator`);
    }
    const [amount] = readArgs(rule, source);
    if (
      !Number.isSafeInteger(amount) ||
      (amount as number) < 0 ||
      (amount as number) > MAX_AMOUNT
    ) {
      throw badRequest(`${source}.args[0] must be an amount in minor units.`, `${source}.args`);
    }
    into.minTotal = amount as number;
    return;
  }
  if (strategy === 'item_sku') {
    if (rule.operator !== 'in' || into.skus !== null) {
      throw badRequest(`${source}: item_sku takes operator "in", once.`, `${source}.operator`);
    }
    into.skus = readSkus(readArgs(rule, source), `${source}.args`);
    return;
  }
  throw badRequest(
    `${source}.strategy must be "cart_total", "item_sku" or "and" (at the top).`,
    `${source}.strategy`,
  );
}

function readAction(
  value: unknown,
  currencies: string[],
): Pick<Offer, 'level' | 'method' | 'amounts' | 'percent' | 'skus'> {
  const source = 'data.rule_set.actions[0]';
  const action = readObjectAt(value, source);
  const level =
    action.strategy === 'cart_discount'
      ? 'cart'
      : action.strategy === 'item_discount'
        ? 'item'
        : null;
  if (level === null) {
    throw badRequest(
      `${source}.strategy must be "cart_discount" or "item_discount".`,
      `${source}.strategy`,
    );
  }
  const [method, amount] = readArgs(action, source);
  let skus: string[] | null = null;
  if (action.condition !== undefined) {
    if (level !== 'item') {
      throw badRequest(`${source}.condition is for item_discount only.`, `${source}.condition`);
    }
    const condition = readObjectAt(action.condition, `${source}.condition`);
    if (condition.strategy !== 'item_sku' || condition.operator !== 'in') {
      throw badRequest(
        `${source}.condition must be {strategy:"item_sku",operator:"in",args:[…]}.`,
        `${source}.condition`,
      );
    }
    skus = readSkus(readArgs(condition, `${source}.condition`), `${source}.condition.args`);
  }
  if (method === 'percent') {
    const percent = readPercent(amount, `${source}.args[1]`);
    return { level, method, amounts: {}, percent, skus };
  }
  if (method === 'fixed') {
    if (
      !Number.isSafeInteger(amount) ||
      (amount as number) < 1 ||
      (amount as number) > MAX_AMOUNT
    ) {
      throw badRequest(
        `${source}.args[1] must be a whole number of minor units from 1 to ${MAX_AMOUNT}.`,
        `${source}.args`,
      );
    }
    const keys = currencies.length === 0 ? [ANY_CURRENCY] : currencies;
    const amounts = Object.fromEntries(keys.map((c) => [c, amount as number]));
    return { level, method, amounts, percent: 0, skus };
  }
  throw badRequest(`${source}.args[0] must be "percent" or "fixed".`, `${source}.args`);
}

/** `data.rule_set` → the offer and the rule set as it will be shown. */
export function ruleSetFields(data: JsonObject): { offer: Offer; document: JsonObject } {
  const ruleSet = readObjectAt(data.rule_set, 'data.rule_set');
  let currencies: string[] = [];
  if (ruleSet.currencies !== undefined) {
    const list = ruleSet.currencies;
    if (!Array.isArray(list) || list.length > MAX_CURRENCIES) {
      throw badRequest(
        `data.rule_set.currencies must be a list of at most ${MAX_CURRENCIES} codes.`,
        'data.rule_set.currencies',
      );
    }
    currencies = list.map((c, i) => readCurrency(c, `data.rule_set.currencies[${i}]`));
  }
  const conditions: Conditions = { minTotal: null, skus: null };
  if (ruleSet.rules !== undefined) readRule(ruleSet.rules, 'data.rule_set.rules', conditions, 0);
  const actions = ruleSet.actions;
  if (!Array.isArray(actions) || actions.length !== 1) {
    throw badRequest(
      'data.rule_set.actions must hold exactly one action.',
      'data.rule_set.actions',
    );
  }
  const action = readAction(actions[0], currencies);
  const keys = currencies.length === 0 ? [ANY_CURRENCY] : currencies;
  const minSubtotal =
    conditions.minTotal === null
      ? null
      : Object.fromEntries(keys.map((c) => [c, conditions.minTotal as number]));
  return {
    offer: { ...action, minSubtotal, requiredSkus: conditions.skus },
    document: {
      rule_set: {
        catalog_ids: Array.isArray(ruleSet.catalog_ids)
          ? ruleSet.catalog_ids
              .filter((id) => typeof id === 'string' && id.length <= 64)
              .slice(0, 100)
          : [],
        currencies,
        ...(ruleSet.rules === undefined ? {} : { rules: ruleSet.rules }),
        actions,
      },
    },
  };
}
