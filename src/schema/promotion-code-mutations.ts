/**
 * A promotion's code writes, for either engine (promotion-mutations.ts calls this once per
 * engine): `add…Codes` (1 to MAX_CODES codes, each judged: the code's characters and length,
 * its uses and uses per customer) and `delete…Code`.
 */

import type { JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import type { RulePromotions, StandardPromotions } from './promotion.ts';
import { judgeCode, judgeCount, MAX_CODES } from './promotion-input.ts';
import { judgeUuid } from './rows.ts';

type Engine = typeof StandardPromotions | typeof RulePromotions;

interface CodeInput {
  code: string;
  uses?: number | null;
  maxUsesPerShopper?: number | null;
}

const PromotionCodeInput = builder.inputRef<CodeInput>('PromotionCodeInput').implement({
  description: 'A new code of a promotion.',
  fields: (t) => ({
    code: t.string({ required: true, description: '1 to 64 letters, digits, "-", "_" or ".".' }),
    uses: t.int({ required: false, description: 'Uses it allows; none: unlimited.' }),
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
        promotionId: t.id({ required: true, description: 'Upstream id of the promotion.' }),
        codes: t.field({ type: [PromotionCodeInput], required: true, description: 'The codes.' }),
      }),
    });
  const Delete = builder
    .inputRef<{ promotionId: string; codeId: string }>(`Delete${name}CodeInput`)
    .implement({
      description: 'The code to delete.',
      fields: (t) => ({
        promotionId: t.id({ required: true, description: 'Upstream id of the promotion.' }),
        codeId: t.id({ required: true, description: 'Upstream id of the code.' }),
      }),
    });
  const CodesPayload = builder
    .objectRef<{ codes: () => unknown[] }>(`Add${name}CodesPayload`)
    .implement({
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
  const DeletedPayload = builder
    .objectRef<{ deletedCodeId: string }>(`Delete${name}CodePayload`)
    .implement({
      description: 'The id of the code that was deleted.',
      fields: (t) => ({
        deletedCodeId: t.exposeID('deletedCodeId', { description: 'Upstream id of the code.' }),
      }),
    });

  builder.mutationField(`add${name}Codes`, (t) =>
    t.field({
      type: CodesPayload,
      description: `Adds codes to a promotion (POST /v2/${segment}/{id}/codes).`,
      args: { input: t.arg({ type: Add, required: true, description: 'The codes.' }) },
      resolve: async (_root, { input }, context) => {
        const promotionId = judgeUuid(input.promotionId, 'input.promotionId');
        if (input.codes.length === 0 || input.codes.length > MAX_CODES) {
          throw new BadUserInputError(`input.codes must hold 1 to ${MAX_CODES} codes`, {
            field: 'input.codes',
          });
        }
        const codes = input.codes.map((code, i) => {
          const at = `input.codes[${i}]`;
          const row: JsonObject = { code: judgeCode(code.code, `${at}.code`) };
          if (code.uses != null) row.uses = judgeCount(code.uses, `${at}.uses`);
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
    }),
  );
  builder.mutationField(`delete${name}Code`, (t) =>
    t.field({
      type: DeletedPayload,
      description: `Deletes one code (DELETE /v2/${segment}/{id}/codes/{codeId}).`,
      args: { input: t.arg({ type: Delete, required: true, description: 'The code.' }) },
      resolve: async (_root, { input }, context) => {
        const promotionId = judgeUuid(input.promotionId, 'input.promotionId');
        const codeId = judgeUuid(input.codeId, 'input.codeId');
        await context.write({
          method: 'DELETE',
          segments: [segment, promotionId, 'codes', codeId],
        });
        return { deletedCodeId: codeId };
      },
    }),
  );
}
