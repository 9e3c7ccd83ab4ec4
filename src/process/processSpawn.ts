/**
 * execa and its dependencies (~115 KB minified): a chunk of their own in the build
 * (`dist/processSpawn.js`), loaded when the first agent starts rather than at activation.
 */
export { execa } from 'execa';
