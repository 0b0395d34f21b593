/**
 * A promotion's code writes, for either engine (promotion-mutations.ts calls this once per
 * engine): `add…Codes` (1 to MAX_CODES codes, each judged: the code's characters and length,
 * the uses it allows and uses per customer) and `delete…Code`.
 */

import type { JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { idInput, idKind, judgeId } from './kit/ids.ts';
import { defineMutation, definePayload } from './kit/mutation.ts';
import type { RulePromotions, StandardPromotions } from './promotion.ts';
import { judgeCode, judgeCount, MAX_CODES } from './promotion-input.ts';

type Engine = typeof StandardPromotions | typeof RulePromotions;

interface CodeInput {
  code: string;
  maxUses?: number | null;
  maxUsesPerShopper?: number | null;
}

const PromotionCodeInput = builder.inputRef<CodeInput>('PromotionCodeInput').implement({
  description: 'A new code of a promotion.',
  fields: (t) => ({
    code: t.string({ required: true, description: '1 to 64 letters, digits, "-", "_" or ".".' }),
    maxUses: t.int({
      required: false,
      description: 'Uses it allows (read back as `maxUses`, with `usesLeft`); none: unlimited.',
    }),
    maxUsesPerShopper: t.int({ required: false, description: 'Uses per customer.' }),
  }),
});

/** Adds `add${name}Codes` and `delete${name}Code` to the schema. */
export function defineCodeWrites(name: string, segment: string, engine: Engine): void {
  const Add = builder
    .inputRef<{ promotionId: string; codes: CodeInput[] }>(`Add${name}CodesInput`)
    .implement({
      description: `Codes to add (1 to ${MAX_CODES}; unique per promotion in any case).`,
      fields: (t) => ({
        promotionId: idInput(t, idKind(name), 'The promotion'),
        codes: t.field({ type: [PromotionCodeInput], required: true, description: 'The codes.' }),
      }),
    });
  const Delete = builder
    .inputRef<{ promotionId: string; codeId: string }>(`Delete${name}CodeInput`)
    .implement({
      description: 'The code to delete.',
      fields: (t) => ({
        promotionId: idInput(t, idKind(name), 'The promotion'),
        codeId: idInput(t, idKind(`${name}Code`), 'The code'),
      }),
    });
  const CodesPayload = definePayload<{ codes: () => unknown[] }>(`Add${name}CodesPayload`, {
    description: 'The codes that were added.',
    fields: (t) => ({
      codes: t.field({
        type: [engine.Codes.ref as never],
        nullable: true,
        description: 'The new codes; null, with WRITE_COMMITTED, when the answer was unusable.',
        resolve: (payload) => payload.codes() as never,
      }),
    }),
  });
  const DeletedPayload = definePayload<{ deletedId: string }>(`Delete${name}CodePayload`, {
    description: 'The id of the code that was deleted.',
    fields: (t) => ({
      deletedId: t.exposeID('deletedId', { description: 'Upstream id of the code.' }),
    }),
  });

  defineMutation(`add${name}Codes`, {
    description: `Adds codes to a promotion (POST /v2/${segment}/{id}/codes).`,
    input: Add,
    payload: CodesPayload,
    resolve: async (input, context) => {
      const promotionId = judgeId(input.promotionId, 'input.promotionId', idKind(name));
      if (input.codes.length === 0 || input.codes.length > MAX_CODES) {
        throw new BadUserInputError(`input.codes must hold 1 to ${MAX_CODES} codes`, {
          field: 'input.codes',
        });
      }
      const codes = input.codes.map((code, i) => {
        const at = `input.codes[${i}]`;
        const row: JsonObject = { code: judgeCode(code.code, `${at}.code`) };
        if (code.maxUses != null) row.uses = judgeCount(code.maxUses, `${at}.maxUses`);
        if (code.maxUsesPerShopper != null) {
          row.max_uses_per_shopper = {
            max_uses: judgeCount(code.maxUsesPerShopper, `${at}.maxUsesPerShopper`),
          };
        }
        return row;
      });
      const response = await context.write({
        method: 'POST',
        segments: [segment, promotionId, 'codes'],
        body: { data: { type: 'promotion_codes', codes } },
      });
      const params = { promotionId };
      return {
        codes: () => {
          const body = response.body as { data?: unknown };
          if (!Array.isArray(body?.data)) return [];
          return body.data.map((row) => engine.Codes.read(row as JsonObject, params));
        },
      };
    },
  });
  defineMutation(`delete${name}Code`, {
    description: `Deletes one code (DELETE /v2/${segment}/{id}/codes/{codeId}).`,
    input: Delete,
    payload: DeletedPayload,
    resolve: async (input, context) => {
      const promotionId = judgeId(input.promotionId, 'input.promotionId', idKind(name));
      const codeId = judgeId(input.codeId, 'input.codeId', idKind(`${name}Code`));
      await context.write({
        method: 'DELETE',
        segments: [segment, promotionId, 'codes', codeId],
      });
      return { deletedId: codeId };
    },
  });
}
