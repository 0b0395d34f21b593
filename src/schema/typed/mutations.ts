/**
 * The create, update and delete mutations of one typed Custom API, with their payloads. Input is
 * judged against the field definitions (field-values.ts) before any upstream call; the writes
 * go through the same write path and error mapping as the generic entry mutations.
 */
import { type GraphQLFieldConfigMap, GraphQLID, GraphQLObjectType } from 'graphql';
import type { UpstreamRequest, UpstreamResponse } from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import {
  entriesPath,
  entryDataSize,
  entryFromWrite,
  MAX_ENTRY_BYTES,
} from '../custom-api-entry.ts';
import { idKind, judgeId } from '../kit/ids.ts';
import { mutationResolver, payloadFields } from '../kit/mutation.ts';
import { type Answered, writeAnswer } from '../kit/writes.ts';
import { optionalIfMatch } from '../rows.ts';
import { type BaseTypes, nonNull } from './base-types.ts';
import { type EntryTypes, type TypedEntry, typedEntry } from './entry-types.ts';
import { judgeFieldInput } from './field-values.ts';
import type { EntryInputTypes } from './input-types.ts';
import type { MappedApi } from './mapping.ts';

/** The create, update and delete root fields of one Custom API, in this order. */
export function entryMutationFields(
  api: MappedApi,
  types: EntryTypes,
  inputs: EntryInputTypes,
  base: BaseTypes,
): GraphQLFieldConfigMap<unknown, GatewayContext> {
  const { names, fields } = api;
  const T = names.type;
  // A typed entry is a Node: its id input takes its global id or its upstreamId.
  const ENTRY = idKind(T);
  const payload = (verb: 'Create' | 'Update') =>
    new GraphQLObjectType<Answered<TypedEntry>, GatewayContext>({
      name: `${verb}${T}Payload`,
      description: `The ${verb === 'Create' ? 'created' : 'updated'} ${T}.`,
      fields: payloadFields(
        {
          [names.lookup]: {
            // Nullable and built here: once the write is done, nothing fails the mutation.
            type: types.ObjectType,
            description:
              'The entry as stored, with its new etag; null, with a WRITE_COMMITTED error, ' +
              'when the write happened but its answer was unusable.',
            resolve: (result) => result.answer(),
          },
        },
        base.UserError,
      ),
    });
  const DeletePayload = new GraphQLObjectType<{ deletedId: string }, GatewayContext>({
    name: `Delete${T}Payload`,
    description: `The ${T} that was deleted.`,
    fields: payloadFields(
      {
        deletedId: {
          type: GraphQLID,
          description: 'Upstream id of the deleted entry.',
          resolve: (result) => result.deletedId,
        },
      },
      base.UserError,
    ),
  });
  const typed = (response: UpstreamResponse) =>
    typedEntry(api, entryFromWrite(response, api.customApiId));

  return {
    [names.create]: {
      type: nonNull(payload('Create')),
      description: `Creates a ${T} (POST …/custom-apis/{id}/entries).`,
      args: { input: { type: nonNull(inputs.CreateInput), description: 'The new entry.' } },
      resolve: mutationResolver(({ input }: { input: Record<string, unknown> }, context) => {
        const attributes = judgeFieldInput(fields, input, 'create');
        const size = entryDataSize(attributes);
        if (size > MAX_ENTRY_BYTES) {
          throw new BadUserInputError(
            `input is ${size} bytes; an entry may hold at most ${MAX_ENTRY_BYTES} bytes (64 KB)`,
            { field: 'input' },
          );
        }
        const request: UpstreamRequest = {
          method: 'POST',
          segments: entriesPath(api.customApiId),
          body: { data: { ...attributes, type: api.apiType } },
        };
        return writeAnswer(context, request, typed);
      }),
    },
    [names.update]: {
      type: nonNull(payload('Update')),
      description: `Updates some fields of a ${T} (PUT), optionally only if unchanged.`,
      args: { input: { type: nonNull(inputs.UpdateInput), description: 'The change.' } },
      resolve: mutationResolver(({ input }: { input: Record<string, unknown> }, context) => {
        const entryId = judgeId(String(input.id), 'input.id', ENTRY);
        const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
        const attributes = judgeFieldInput(fields, input, 'update');
        const request: UpstreamRequest = {
          method: 'PUT',
          segments: [...entriesPath(api.customApiId), entryId],
          body: { data: { ...attributes, type: api.apiType } },
          ifMatch,
        };
        return writeAnswer(context, request, typed);
      }),
    },
    [names.delete]: {
      type: nonNull(DeletePayload),
      description: `Deletes a ${T}, optionally only if unchanged since it was read.`,
      args: { input: { type: nonNull(inputs.DeleteInput), description: 'The entry.' } },
      resolve: mutationResolver(
        async ({ input }: { input: { id: string; ifMatch?: string | null } }, context) => {
          const entryId = judgeId(input.id, 'input.id', ENTRY);
          const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
          await context.write({
            method: 'DELETE',
            segments: [...entriesPath(api.customApiId), entryId],
            ifMatch,
          });
          return { deletedId: entryId };
        },
      ),
    },
  };
}
