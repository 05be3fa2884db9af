/**
 * Makes ahead of `npm test` what its package, recipe and release tests share (test/helpers/packed.ts):
 * the tarball with the dist/ it was built with, and both scratch installs (the package alone, and
 * with the recipes' dev dependencies). `.ci/run` runs it beside the typecheck and the linters, on
 * cores they leave idle as they end, so no test file waits for a pack or an install. It only saves
 * time: a test makes whatever is missing itself.
 */
import { scratchProject } from './packed.js';
import { recipeProject } from './recipes.js';

const projects = await Promise.all([scratchProject('prefetch'), recipeProject('prefetch')]);
await Promise.all(projects.map((project) => project.remove()));
console.log('the package is packed and installed for the tests');
