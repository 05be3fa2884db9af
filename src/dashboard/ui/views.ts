/**
 * The dashboard's views, in the navigation's order: the one list the shell's navigation and
 * routing (main.tsx), `npm run screenshots` and the browser tests read
 * (CONTRIBUTING.md, "A dashboard view"). A view's `id` is its address (`#/<id>`), its module
 * (`src/dashboard/ui/<id>-view.tsx`, whose default export is the view) and its picture
 * (`docs/screenshots/<id>.png`); its `label` names its link and heads it.
 *
 * Free of Preact and the DOM on purpose: the screenshots script and the tests are Node programs,
 * type-checked without the DOM, and read this list too. That is why an entry names its module by
 * the id rather than importing the component.
 */
export const VIEWS = [
  { id: 'requests', label: 'Requests' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'clock', label: 'Clock' },
  { id: 'scenarios', label: 'Scenarios' },
  { id: 'limits', label: 'Limits' },
  { id: 'state', label: 'State' },
  { id: 'coverage', label: 'Coverage' },
] as const satisfies ReadonlyArray<{ id: string; label: string }>;

export type View = (typeof VIEWS)[number];
export type ViewId = View['id'];

/** The view a location hash names (`#/clock`, `#clock`); the first view for any other. */
export function viewOfHash(hash: string): View {
  const id = hash.replace(/^#\/?/, '');
  return VIEWS.find((view) => view.id === id) ?? VIEWS[0];
}

export function hashOf(view: View): string {
  return `#/${view.id}`;
}

/** The module that holds the view, without its extension. */
export function moduleOf(view: View): string {
  return `${view.id}-view`;
}
