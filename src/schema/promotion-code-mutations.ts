/**
 * A promotion's code writes, for either engine (promotion-mutations.ts calls this once per
 * engine): `add…Codes` (1 to MAX_CODES codes, each judged: the code's characters and length,
 * the uses it allows and uses per customer) and `delete…Code`.
 */

import type { JsonObject, UpstreamRequest } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, type IdFields } from './kit/mutation.ts';
import { answerPayload, defineDelete, writeAnswer } from './kit/writes.ts';
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
  const promotion = {
    promotionId: [idKind(name), 'The promotion'],
  } as const satisfies IdFields<'promotionId'>;

  defineMutation(`add${name}Codes`, {
    description: `Adds codes to a promotion (POST /v2/${segment}/{id}/codes).`,
    ids: promotion,
    input: {
      description: `Codes to add (1 to ${MAX_CODES}; unique per promotion in any case).`,
      fields: (t) => ({
        codes: t.field({ type: [PromotionCodeInput], required: true, description: 'The codes.' }),
      }),
    },
    payload: answerPayload<unknown[]>(`Add${name}CodesPayload`, {
      description: 'The codes that were added.',
      field: 'codes',
      type: [engine.Codes.ref],
      about: 'The new codes; null, with WRITE_COMMITTED, when the answer was unusable.',
    }),
    resolve: (input, context, { promotionId }) => {
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
      const request: UpstreamRequest = {
        method: 'POST',
        segments: [segment, promotionId, 'codes'],
        body: { data: { type: 'promotion_codes', codes } },
      };
      return writeAnswer(context, request, (response) => {
        const body = response.body as { data?: unknown };
        if (!Array.isArray(body?.data)) return [];
        return body.data.map((row) => engine.Codes.read(row as JsonObject, { promotionId }));
      });
    },
  });
  defineDelete(`delete${name}Code`, {
    description: `Deletes one code (DELETE /v2/${segment}/{id}/codes/{codeId}).`,
    what: 'code',
    ids: { ...promotion, codeId: [idKind(`${name}Code`), 'The code'] },
    deleted: 'codeId',
    request: ({ promotionId, codeId }) => ({ segments: [segment, promotionId, 'codes', codeId] }),
  });
}
