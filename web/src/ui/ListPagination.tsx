import { Pagination, type PaginationProps } from '@mantine/core';

/** The props of a list page whose filters and page live in the URL. */
export interface ListPageProps<P> {
  params: P;
  onParamsChange: (next: Partial<P>) => void;
}

/** The page links of a paged list; none while it fits on one page (or has not loaded yet). */
export function ListPagination({
  totalPages,
  ...props
}: Omit<PaginationProps, 'total'> & { totalPages: number | undefined }) {
  if (totalPages === undefined || totalPages <= 1) return null;
  return <Pagination total={totalPages} {...props} />;
}
