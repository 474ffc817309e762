/** Errors in the WordPress REST form `{code, message, data: {status, …}}` (the badge plugin's API documents none). */
import { SimHttpError } from '../core/http';

function wpError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): SimHttpError {
  return new SimHttpError(status, { code, message, data: { status, ...extra } }, headers);
}

export const badgeErrors = {
  invalidJson: (reason: string) => wpError(400, 'rest_invalid_json', `Invalid JSON body passed: ${reason}.`),
  missing: (params: string[]) =>
    wpError(400, 'rest_missing_callback_param', `Missing parameter(s): ${params.join(', ')}`, { params }),
  invalid: (params: Record<string, string>) =>
    wpError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
      params,
    }),
  notFound: () => wpError(404, 'rest_badge_invalid_id', 'Invalid badge ID.'),
  notLoggedIn: (challenge: string) =>
    wpError(
      401,
      'rest_not_logged_in',
      'You are not currently logged in.',
      {},
      { 'www-authenticate': challenge },
    ),
  badCredentials: (challenge: string) =>
    wpError(
      401,
      'rest_invalid_credentials',
      'The credentials given are not valid.',
      {},
      { 'www-authenticate': challenge },
    ),
  serverError: (status: number) =>
    wpError(status, 'sim_status_5xx', `Simulated server error (HTTP ${status}, X-Sim-Fault status-5xx).`),
};
