import * as z from 'zod';

/** Daraja clients send numbers either as JSON numbers or as digit strings; both are accepted. */
export const digitsOf = (re: RegExp) =>
  z.union([z.number().int().nonnegative(), z.string()]).transform(String).pipe(z.string().regex(re));

export const WholeAmount = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .transform(Number),
  ])
  .pipe(z.number().int('whole numbers only').min(1));

export const Msisdn254 = digitsOf(/^254\d{9}$/);

export const HttpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
});
