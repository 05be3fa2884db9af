import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UI_MODULE } from '../../src/dashboard/router.js';
import { moduleOf, VIEWS } from '../../src/dashboard/ui/views.js';
import { packagePath } from '../../src/lib/package-root.js';

/*
 * The dashboard's list of views (src/dashboard/ui/views.ts) against what each entry needs: a
 * module the shell loads by the view's id, a picture in docs/screenshots and docs/dashboard.md,
 * and a browser test of its own. Read from the list, so a new entry, a typo in an id or a view
 * taken out fails here rather than in a browser or in a reader's eyes.
 */

const UI = packagePath('src', 'dashboard', 'ui');
const DASHBOARD_DOC = readFileSync(packagePath('docs', 'dashboard.md'), 'utf8');

describe('the dashboard views', () => {
  it('have ids and labels that name one view each', () => {
    expect(new Set(VIEWS.map((view) => view.id)).size).toBe(VIEWS.length);
    expect(new Set(VIEWS.map((view) => view.label)).size).toBe(VIEWS.length);
  });

  describe.each(VIEWS)('$label', (view) => {
    it(`is the default export of src/dashboard/ui/${moduleOf(view)}.tsx, a module the dashboard's router serves`, () => {
      const file = `${UI}/${moduleOf(view)}.tsx`;
      expect(existsSync(file), `${file} is missing`).toBe(true);
      expect(readFileSync(file, 'utf8')).toMatch(/^export default function \w+\(/m);
      expect(`${moduleOf(view)}.js`).toMatch(UI_MODULE);
    });

    it(`has its picture, docs/screenshots/${view.id}.png, shown in docs/dashboard.md`, () => {
      expect(existsSync(packagePath('docs', 'screenshots', `${view.id}.png`))).toBe(true);
      expect(DASHBOARD_DOC).toContain(`![${view.label}](screenshots/${view.id}.png)`);
    });

    it(`has a browser test of its own, test/browser/dashboard-${view.id}.test.ts`, () => {
      expect(existsSync(packagePath('test', 'browser', `dashboard-${view.id}.test.ts`))).toBe(true);
    });
  });

  it('are the only views: no module, picture or picture in the docs is left of a view no longer listed', () => {
    const modules = VIEWS.map((view) => `${moduleOf(view)}.tsx`);
    expect(readdirSync(UI).filter((name) => name.endsWith('-view.tsx')).sort()).toEqual([...modules].sort());
    const pictures = VIEWS.map((view) => `${view.id}.png`).sort();
    expect(readdirSync(packagePath('docs', 'screenshots')).sort()).toEqual(pictures);
    expect([...DASHBOARD_DOC.matchAll(/\]\(screenshots\/([^)]+)\)/g)].map((match) => match[1]).sort()).toEqual(pictures);
  });
});
