/**
 * The direct lane of compiled trusted documents: a JSON POST that names a trusted document by
 * `documentId`, whose plan compiled (./plan.ts) and has already passed the gateway's validation
 * once on the ordinary path, is answered here without Yoga's pipeline, envelop, or Request and
 * Response objects. What such a request needs of the ordinary path is done here in the same
 * order with the same code: the caller limit's take (../caller-limit.ts), the operation limits
 * judged with the variables' values (../operation-limits.ts), `@inContext`, the session
 * (src/upstream/session.ts: credentials, forwarded headers, call budget, deadline, cancellation
 * when the client goes away), the plan, the session's finish, Yoga's masking with the error
 * codes and the bounded echo (../error-answers.ts) and Yoga's own result processor when there
 * are errors, CORS, `x-request-id`, the request line and the metrics.
 *
 * Anything it is not sure of goes to the ordinary path before anything is counted or taken
 * (the reason counted in `declined`): another Accept than JSON's, a body with other parameters,
 * an id not in the manifest, a document not compiled or not yet validated, another operation
 * name, variables that do not coerce, an `@inContext` value refused, an operation the limits
 * refuse, a caller over its rate (the ordinary path refuses it again: a refused take takes
 * nothing). With a tracer configured the lane is off (createGateway does not build it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { inContextHeaders } from '../../schema/in-context.ts';
import type { GatewayContext, RequestLike } from '../../upstream/index.ts';
import type { CallerTake } from '../caller-limit.ts';
import { type CorsOrigins, corsAnswerHeaders } from '../cors.ts';
import { withCappedEcho, withErrorCodes } from '../error-answers.ts';
import { BufferedResponse, IncomingRequest } from '../fast-path-shims.ts';
import { type Logger, requestedOperationName, writeRequestLine } from '../logging.ts';
import type { Metrics } from '../metrics.ts';
import type { OperationJudge } from '../operation-limits.ts';
import { lookupDocument, type PersistedDocuments } from '../persisted-documents.ts';
import type { CompiledPlan } from './plan.ts';
import type { CompiledStats, PlanRegistry } from './plugin.ts';
import { BAD_VARIABLES, coerceVariables, runCoerced } from './run.ts';

/** What createGateway knows for the lane; the listener adds Yoga's masking. */
export interface LaneSettings {
  endpoint: string;
  documents: PersistedDocuments;
  registry: PlanRegistry;
  /** The schema a request runs on (the typed schema's source, or the static schema). */
  schema: () => GraphQLSchema;
  createContext: (request: RequestLike) => GatewayContext;
  stats: CompiledStats;
  cors: CorsOrigins;
  callerTake: CallerTake | undefined;
  judge: OperationJudge;
  metrics: Metrics | undefined;
  /** The request log, when request lines are written. */
  logger: Logger | undefined;
}

export interface LaneOptions extends LaneSettings {
  /** Yoga's masking (its maskedErrorsOpts: it logs what it masks). */
  masking: { maskError(error: unknown, message: string): Error; errorMessage: string };
}

/**
 * Answers the request and returns true, or returns false at once (the caller runs the ordinary
 * path); `ordinary` runs it when the lane declines after waiting (a caller limit shared
 * through Redis).
 */
export type Lane = (
  req: IncomingMessage,
  res: ServerResponse,
  text: string,
  ordinary: () => void,
) => boolean;

const CONTENT_TYPE = 'application/json; charset=utf-8';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a request asks, read from its body and checked; or the reason the lane declines it. */
interface Asked {
  plan: CompiledPlan;
  text: string;
  operationName: string | undefined;
  inputs: Record<string, unknown> | null | undefined;
  variableValues: unknown;
  operationHeaders: Record<string, string> | undefined;
}

export function createLane(options: LaneOptions): Lane | undefined {
  const { endpoint, documents, registry, stats, masking, metrics, logger, judge } = options;
  // The request line's path is the endpoint as the log plugin reads it; an endpoint it would
  // normalise is left to the ordinary path.
  if (/[%.\\#?]/.test(endpoint)) return undefined;
  const cors = corsAnswerHeaders(options.cors);
  const declined = stats.declined;
  const decline = (reason: string): false => {
    declined[reason] = (declined[reason] ?? 0) + 1;
    return false;
  };

  /** The body as the lane takes it, or a reason to decline. */
  const read = (text: string): Asked | string => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return 'body is not JSON';
    }
    if (!isPlainObject(body)) return 'body is not an object';
    let documentId: unknown;
    let inputs: unknown;
    let operationName: unknown;
    for (const key in body) {
      if (key === 'documentId') documentId = body[key];
      else if (key === 'variables') inputs = body[key];
      else if (key === 'operationName') operationName = body[key];
      else return 'other parameters';
    }
    if (typeof documentId !== 'string' || documentId === '') return 'no documentId';
    if (inputs !== undefined && inputs !== null && !isPlainObject(inputs)) return 'variables';
    if (
      operationName !== undefined &&
      operationName !== null &&
      typeof operationName !== 'string'
    ) {
      return 'operationName';
    }
    const documentText = lookupDocument(documents, documentId);
    if (documentText === null) return 'unknown id';
    const plan = registry.planFor(options.schema(), documentText);
    if (plan === null) return 'not compiled';
    // Validation (depth, cost, aliases, tokens…) is proven by the ordinary path's first run.
    if (!registry.proven(plan)) return 'not yet validated';
    if (operationName != null && operationName !== plan.operation.name?.value) {
      return 'another operation name';
    }
    const given = inputs as Record<string, unknown> | null | undefined;
    const variableValues = coerceVariables(plan, given);
    if (variableValues === BAD_VARIABLES) return 'variables do not coerce';
    let operationHeaders: Record<string, string> | undefined;
    if (plan.operation.directives !== undefined && plan.operation.directives.length > 0) {
      try {
        operationHeaders = inContextHeaders(plan.operation, given);
      } catch {
        return '@inContext refused';
      }
    }
    if (judge(plan.schema, plan.document, operationName as string | null | undefined, given)) {
      return 'operation limits';
    }
    return {
      plan,
      text: documentText,
      operationName: (operationName as string | null | undefined) ?? undefined,
      inputs: given,
      variableValues,
      operationHeaders,
    };
  };

  const run = (
    req: IncomingMessage,
    res: ServerResponse,
    asked: Asked,
    started: number,
    ordinary: () => void,
  ) => {
    let context: GatewayContext;
    try {
      context = options.createContext(new IncomingRequest(req, res));
    } catch {
      // Nothing is counted yet: the ordinary path meets the same failure and answers it.
      decline('context failed');
      ordinary();
      return;
    }
    metrics?.lane.begin();
    if (asked.operationHeaders !== undefined) context.operation.headers = asked.operationHeaders;
    stats.lane += 1;
    const done = (result: ExecutionResult) => {
      context.finish();
      answer(req, res, asked, context, result, started);
    };
    let out: ExecutionResult | Promise<ExecutionResult>;
    try {
      out = runCoerced(asked.plan, context, undefined, asked.variableValues);
    } catch (error) {
      out = { errors: [error as GraphQLError] };
    }
    if (out instanceof Promise) {
      out.then(done, (error: unknown) => done({ errors: [error as GraphQLError] }));
    } else {
      done(out);
    }
  };

  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    asked: Asked,
    context: GatewayContext,
    executed: ExecutionResult,
    started: number,
  ) => {
    let status = 200;
    let headers: Record<string, string>;
    let body: string;
    let result: ExecutionResult = executed;
    const codes: string[] = [];
    if (executed.errors === undefined) {
      body = `{"data":${JSON.stringify(executed.data)}}`;
      headers = { 'Content-Type': CONTENT_TYPE };
    } else {
      // Yoga's masking (envelop's, after execution), then the codes (onExecutionResult), then
      // the bounded echo and Yoga's result processor (onResultProcess), as on the ordinary path.
      result = withErrorCodes({
        ...executed,
        errors: executed.errors.map(
          (error) => masking.maskError(error, masking.errorMessage) as GraphQLError,
        ),
      });
      for (const error of result.errors ?? []) {
        const code = error.extensions?.code;
        if (typeof code === 'string') codes.push(code);
      }
      const response = processRegularResult(
        withCappedEcho(result) as never,
        { Response: BufferedResponse } as never,
        'application/json',
      ) as unknown as BufferedResponse;
      status = response.status;
      body = response.bodyText ?? '';
      headers = {};
      for (const [name, value] of response.headers.map.values()) headers[name] = value;
    }
    const origin = req.headers.origin;
    const corsHeaders = cors(origin === undefined ? null : origin);
    for (let i = 0; i < corsHeaders.length; i += 2) {
      const name = corsHeaders[i] as string;
      const value = corsHeaders[i + 1] as string;
      headers[name] =
        name === 'vary' && headers.vary !== undefined ? `${headers.vary}, ${value}` : value;
    }
    if (logger !== undefined) headers['x-request-id'] = context.requestId;
    metrics?.lane.end(
      started,
      asked.plan.operation.name?.value,
      context.budget.used,
      result,
      status,
    );
    if (logger !== undefined) {
      writeRequestLine(logger, {
        requestId: context.requestId,
        method: 'POST',
        path: endpoint,
        operationName: requestedOperationName({
          operationName: asked.operationName,
          query: asked.text,
        })?.slice(0, 100),
        status,
        started,
        upstreamCalls: context.budget.used,
        errorCodes: codes,
      });
    }
    if (res.destroyed || res.writableEnded) return;
    headers['content-length'] = String(Buffer.byteLength(body));
    res.writeHead(status, headers);
    res.end(body);
  };

  return (req, res, text, ordinary) => {
    const accept = req.headers.accept;
    if (accept !== undefined && accept !== '*/*' && accept !== 'application/json') {
      return decline('accept');
    }
    const started = performance.now();
    const asked = read(text);
    if (typeof asked === 'string') return decline(asked);
    const take = options.callerTake;
    if (take === undefined) {
      run(req, res, asked, started, ordinary);
      return true;
    }
    const wait = take(req.headers.authorization ?? null, req.socket.remoteAddress);
    if (typeof wait === 'number') {
      if (wait !== 0) return decline('caller over its rate');
      run(req, res, asked, started, ordinary);
      return true;
    }
    wait.then(
      (later) => {
        if (later === 0) run(req, res, asked, started, ordinary);
        else {
          decline('caller over its rate');
          ordinary();
        }
      },
      () => {
        decline('caller limit failed');
        ordinary();
      },
    );
    return true;
  };
}
