// Preloaded into a process under test (`NODE_OPTIONS=--import=<this file>`): writes one line per
// request an undici dispatcher sends, with the identity of the dispatcher that holds the socket,
// to the file named by POOL_CENSUS_FILE. A test then counts the dispatchers that reached an
// origin (test/gateway/one-pool.test.ts).
//
// Every socket undici opens belongs to a Client; a Client belongs to a Pool (its own, or one an
// Agent made for the origin, as the global dispatcher does) or stands alone. A request is
// counted at its Pool, or at its Client when that stands alone. Node's built-in fetch carries
// its own copy of undici: the global dispatcher is set to this undici's Agent, which that fetch
// then uses, so its requests are counted too.
import { appendFileSync } from 'node:fs';
import { Agent, Client, Pool, setGlobalDispatcher } from 'undici';

const file = process.env.POOL_CENSUS_FILE;
if (file) {
  const ids = new WeakMap();
  let next = 0;
  const idOf = (dispatcher) => {
    let id = ids.get(dispatcher);
    if (id === undefined) {
      next += 1;
      id = next;
      ids.set(dispatcher, id);
    }
    return id;
  };
  const symbol = (object, description) => {
    for (let proto = object; proto; proto = Object.getPrototypeOf(proto)) {
      const found = Object.getOwnPropertySymbols(proto).find((s) => s.description === description);
      if (found) return found;
    }
    return undefined;
  };
  const originOf = (dispatcher, opts) => {
    if (opts?.origin) return new URL(String(opts.origin)).origin;
    const url = dispatcher[symbol(dispatcher, 'url')];
    return url ? new URL(String(url)).origin : 'unknown';
  };
  const record = (kind, dispatcher, opts) => {
    appendFileSync(
      file,
      `${kind}#${idOf(dispatcher)}\t${originOf(dispatcher, opts)}\t${opts?.method}\t${opts?.path}\n`,
    );
  };

  // Clients a Pool made for itself: their requests are counted at the Pool.
  const pooled = new WeakSet();
  const poolBase = Object.getPrototypeOf(Pool.prototype);
  const addClient = symbol(poolBase, 'add client');
  const originalAdd = poolBase[addClient];
  poolBase[addClient] = function (client) {
    pooled.add(client);
    return originalAdd.call(this, client);
  };
  const poolDispatch = Pool.prototype.dispatch;
  Pool.prototype.dispatch = function (opts, handler) {
    record('pool', this, opts);
    return poolDispatch.call(this, opts, handler);
  };
  const clientDispatch = Client.prototype.dispatch;
  Client.prototype.dispatch = function (opts, handler) {
    if (!pooled.has(this)) record('client', this, opts);
    return clientDispatch.call(this, opts, handler);
  };
  setGlobalDispatcher(new Agent());
}
