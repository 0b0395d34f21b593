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

/** A class rather than closures: one is made for every operation. */
class OperationBudget implements CallBudget {
  used = 0;
  readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  ensure(calls: number, what: string): void {
    if (this.used + calls > this.limit) this.refuse(calls, what);
  }

  consume(what: string): void {
    if (this.used + 1 > this.limit) this.refuse(1, what);
    this.used += 1;
  }

  private refuse(needed: number, what: string): never {
    throw new UpstreamBudgetExceededError(
      `${what} needs ${needed} upstream call(s) but this operation has ${this.limit - this.used} ` +
        `of its ${this.limit} left; ask for fewer records per page or split the query`,
    );
  }
}

export function createCallBudget(limit: number): CallBudget {
  return new OperationBudget(limit);
}
