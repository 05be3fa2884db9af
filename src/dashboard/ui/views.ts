/** The dashboard's views, in the navigation's order (issue 20); each is reached at `#/<slug>`. */
export const VIEWS = ['Requests', 'Webhooks', 'Clock', 'Scenarios', 'Limits', 'State', 'Coverage'] as const;
export type ViewName = (typeof VIEWS)[number];

export function slugOf(view: ViewName): string {
  return view.toLowerCase();
}

/** The view a location hash names; Requests for any other. */
export function viewOfHash(hash: string): ViewName {
  const slug = hash.replace(/^#\/?/, '');
  return VIEWS.find((view) => slugOf(view) === slug) ?? 'Requests';
}
