import { UpstreamBudgetExceededError } from './errors.ts';

/** Upstream calls one GraphQL operation may make unless configured (`UPSTREAM_CALL_BUDGET`). */
export const DEFAULT_CALL_BUDGET = 50;

/**
 * The ceiling of upstream calls for one GraphQL operation. The REST client consumes one unit per
 * call it sends; planners that know their cost up front (the pagination planner) call `ensure`
 * first, so an operation that cannot finish within its budget is refused before any call.
 */
export interface CallBudget {
  readonly limit: number;
  readonly used: number;
  /** Throws UpstreamBudgetExceededError unless `calls` more calls fit; consumes nothing. */
  ensure(calls: number, what: string): void;
  /** Records one call about to be sent; throws when the budget is already spent. */
  consume(what: string): void;
}

export function createCallBudget(limit: number): CallBudget {
  let used = 0;
  const refuse = (needed: number, what: string): never => {
    throw new UpstreamBudgetExceededError(
      `${what} needs ${needed} upstream call(s) but this operation has ${limit - used} of its ` +
        `${limit} left; ask for fewer records per page or split the query`,
    );
  };
  return {
    limit,
    get used() {
      return used;
    },
    ensure(calls, what) {
      if (used + calls > limit) refuse(calls, what);
    },
    consume(what) {
      if (used + 1 > limit) refuse(1, what);
      used += 1;
    },
  };
}
