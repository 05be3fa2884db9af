/* global module */
/*
 * The structure of src/, checked by `npm run lint:structure` (part of `npm run lint`): no import
 * circles, and every import points down the floors below (a module may use its own floor and the
 * ones under it). A folder's floor says who may use it; CONTRIBUTING.md explains where a new module
 * goes. Type-only imports count: a type that points up ties the floors together all the same.
 */
const FLOORS = [
  ['lib', 'generated', 'version.ts'],
  ['clock', 'store', 'redaction'],
  ['events', 'journal'],
  ['workspaces', 'limits'],
  ['http'],
  ['platforms', 'scenarios', 'api', 'coverage'],
  ['control', 'proxy', 'docs', 'dashboard', 'client', 'mcp'],
  ['kit', 'server.ts'],
  ['cli', 'index.ts', 'types.ts'],
  ['bin.ts'],
];

const pathOf = (names) => `^src/(${names.map((name) => name.replace('.', '\\.')).join('|')})($|/)`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: one of these modules belongs on another floor, or shares a piece that should sit below both.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...FLOORS.slice(0, -1).map((floor, index) => ({
      name: `floor-${index}-points-down`,
      severity: 'error',
      comment: `${floor.join(', ')} may import only from their own floor and those below: move the shared piece down, or this module up.`,
      from: { path: pathOf(floor) },
      to: { path: pathOf(FLOORS.slice(index + 1).flat()) },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
