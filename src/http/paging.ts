import Type, { type Static } from 'typebox';

/** Page size and offset when the query leaves them out. */
export const PAGE_DEFAULTS = { limit: 100, offset: 0 } as const;

/** The paging parameters of a list's query string: spread into its query schema. */
export const pageQuery = (what: string) => ({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: PAGE_DEFAULTS.limit,
      description: 'Page size (1-1000)',
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: PAGE_DEFAULTS.offset,
      description: `${what} to skip`,
    }),
  ),
});

export const Pagination = Type.Object({
  total: Type.Integer({ description: 'Matching records in all pages' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  hasMore: Type.Boolean({ description: 'More records follow this page' }),
});
export type Pagination = Static<typeof Pagination>;

export interface Page {
  limit: number;
  offset: number;
}

/** The page a query asks for, defaults filled in. */
export const pageOf = (query: { limit?: number; offset?: number }): Page => ({
  limit: query.limit ?? PAGE_DEFAULTS.limit,
  offset: query.offset ?? PAGE_DEFAULTS.offset,
});

/** The `pagination` object of an answer holding `count` records of `page` out of `total`. */
export const paginationOf = (page: Page, count: number, total: number): Pagination => ({
  total,
  ...page,
  hasMore: page.offset + count < total,
});
