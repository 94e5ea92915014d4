type LayoutKind = 'none' | 'padded' | 'no-padding';

export interface PageLayout {
  desktop: LayoutKind;
  phone: LayoutKind;
  stickyHeader: { desktop: boolean; phone: boolean };
}

const defaultLayout: PageLayout = {
  desktop: 'padded',
  phone: 'padded',
  stickyHeader: { desktop: true, phone: true },
};

/** What each route tells the frame through `staticData`. */
export interface PageMeta {
  title?: string;
  layout?: Partial<PageLayout>;
}

const productName = 'Renkei';

/** `<page title> | Renkei` */
export function documentTitle(title: string | undefined): string {
  return title ? `${title} | ${productName}` : productName;
}

const phonePages = [
  /^\/medical_institutions_search$/,
  /^\/crms\/[^/]+$/,
  /^\/crms\/[^/]+\/communications$/,
  /^\/communications$/,
];

/** Spec §2: only partner management, /crms/{id}, /crms/{id}/communications and /communications work on phones. */
export function isPhoneSupported(pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '') || '/';
  return phonePages.some((re) => re.test(path));
}

export const phoneUnsupportedMessage = 'このページはスマートフォンでの閲覧に対応していません';

export function resolveLayout(meta: PageMeta | undefined): PageLayout {
  const l = meta?.layout ?? {};
  return { ...defaultLayout, ...l, stickyHeader: { ...defaultLayout.stickyHeader, ...l.stickyHeader } };
}
