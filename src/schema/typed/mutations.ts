/**
 * The create, update and delete mutations of one typed Custom API, with their payloads. Input is
 * judged against the field definitions (field-values.ts) before any upstream call; the writes
 * go through the same write path and error mapping as the generic entry mutations.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { type GraphQLFieldConfigMap, GraphQLID, GraphQLObjectType } from 'graphql';
import { BadUserInputError } from '../../upstream/errors.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import {
  entriesPath,
  entryDataSize,
  entryFromWrite,
  MAX_ENTRY_BYTES,
} from '../custom-api-entry.ts';
import { judgeUuid, optionalIfMatch } from '../rows.ts';
import { nonNull } from './base-types.ts';
import { type EntryTypes, type TypedEntry, typedEntry } from './entry-types.ts';
import { judgeFieldInput } from './field-values.ts';
import type { EntryInputTypes } from './input-types.ts';
import type { MappedApi } from './mapping.ts';

/** The create, update and delete root fields of one Custom API, in this order. */
export function entryMutationFields(
  api: MappedApi,
  types: EntryTypes,
  inputs: EntryInputTypes,
): GraphQLFieldConfigMap<unknown, GatewayContext> {
  const { names, fields } = api;
  const T = names.type;
  const payload = (verb: 'Create' | 'Update') =>
    new GraphQLObjectType<{ entry: () => TypedEntry }, GatewayContext>({
      name: `${verb}${T}Payload`,
      description: `The ${verb === 'Create' ? 'created' : 'updated'} ${T}.`,
      fields: {
        [names.lookup]: {
          // Nullable and built here: once the write is done, nothing fails the mutation.
          type: types.ObjectType,
          description:
            'The entry as stored, with its new etag; null, with a WRITE_COMMITTED error, ' +
            'when the write happened but its answer was unusable.',
          resolve: (result) => result.entry(),
        },
      },
    });
  const DeletePayload = new GraphQLObjectType<{ entryId: string }, GatewayContext>({
    name: `Delete${T}Payload`,
    description: `What was deleted.`,
    fields: {
      deletedId: {
        type: nonNull(GraphQLID),
        description: 'Global id the deleted entry had, to evict it from client caches.',
        resolve: (result) => encodeGlobalID(T, result.entryId),
      },
      deletedUpstreamId: {
        type: nonNull(GraphQLID),
        description: 'Upstream id of the deleted entry.',
        resolve: (result) => result.entryId,
      },
    },
  });

  return {
    [names.create]: {
      type: nonNull(payload('Create')),
      description: `Creates a ${T} (POST …/custom-apis/{id}/entries).`,
      args: { input: { type: nonNull(inputs.CreateInput), description: 'The new entry.' } },
      resolve: async (_root, { input }: { input: Record<string, unknown> }, context) => {
        const attributes = judgeFieldInput(fields, input, 'create');
        const size = entryDataSize(attributes);
        if (size > MAX_ENTRY_BYTES) {
          throw new BadUserInputError(
            `input is ${size} bytes; an entry may hold at most ${MAX_ENTRY_BYTES} bytes (64 KB)`,
            { field: 'input' },
          );
        }
        const response = await context.write({
          method: 'POST',
          segments: entriesPath(api.customApiId),
          body: { data: { ...attributes, type: api.apiType } },
        });
        return { entry: () => typedEntry(api, entryFromWrite(response, api.customApiId)) };
      },
    },
    [names.update]: {
      type: nonNull(payload('Update')),
      description: `Updates some fields of a ${T} (PUT), optionally only if unchanged.`,
      args: { input: { type: nonNull(inputs.UpdateInput), description: 'The change.' } },
      resolve: async (_root, { input }: { input: Record<string, unknown> }, context) => {
        const entryId = judgeUuid(String(input.id), 'input.id');
        const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
        const attributes = judgeFieldInput(fields, input, 'update');
        const response = await context.write({
          method: 'PUT',
          segments: [...entriesPath(api.customApiId), entryId],
          body: { data: { ...attributes, type: api.apiType } },
          ifMatch,
        });
        return { entry: () => typedEntry(api, entryFromWrite(response, api.customApiId)) };
      },
    },
    [names.delete]: {
      type: nonNull(DeletePayload),
      description: `Deletes a ${T}, optionally only if unchanged since it was read.`,
      args: { input: { type: nonNull(inputs.DeleteInput), description: 'The entry.' } },
      resolve: async (
        _root,
        { input }: { input: { id: string; ifMatch?: string | null } },
        context,
      ) => {
        const entryId = judgeUuid(input.id, 'input.id');
        const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
        await context.write({
          method: 'DELETE',
          segments: [...entriesPath(api.customApiId), entryId],
          ifMatch,
        });
        return { entryId };
      },
    },
  };
}
