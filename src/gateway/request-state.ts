/**
 * A plugin's state for one request, kept on the request object under a symbol of the plugin's
 * own rather than in a WeakMap: every live WeakMap entry is an ephemeron the garbage collector
 * has to trace, and there is one per request per plugin. The state goes with the request, and
 * `delete` writes `undefined` instead of deleting the property, so request objects keep one shape.
 */
export interface RequestStates<S> {
  get(request: object): S | undefined;
  set(request: object, state: S): void;
  delete(request: object): void;
}

export function requestStates<S>(plugin: string): RequestStates<S> {
  const key = Symbol(plugin);
  type Holder = Record<symbol, S | undefined>;
  return {
    get: (request) => (request as Holder)[key],
    set(request, state) {
      (request as Holder)[key] = state;
    },
    delete(request) {
      (request as Holder)[key] = undefined;
    },
  };
}
