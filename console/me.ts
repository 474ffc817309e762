import { api, type MeAnswer } from './api';

/**
 * Who the console is signed in as (GET /v1/me), asked once per sign-in: the views hide what the role
 * cannot do (the API refuses it anyway, 403 FORBIDDEN_ROLE).
 */
let asked: { token: string | null; answer: Promise<MeAnswer> } | undefined;

export function whoAmI(token: string | null): Promise<MeAnswer> {
  if (!asked || asked.token !== token) {
    const answer = api<MeAnswer>('/v1/me');
    // A failed answer is asked again next time (the relay may have been away).
    answer.catch(() => {
      if (asked?.answer === answer) asked = undefined;
    });
    asked = { token, answer };
  }
  return asked.answer;
}
