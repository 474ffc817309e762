/** The HTTP methods a route may declare: shared by the provider folders' routes and the HTTP layer. */
/** @public the list the type is derived from */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
