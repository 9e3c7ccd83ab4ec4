/**
 * The archive readers (node-tar and yauzl, ~110 KB minified): a chunk of their own in the build
 * (`dist/registryUnpack.js`), loaded by `unpack` on the first install from an archive.
 */
export { extractTar } from './extractTar';
export { extractZip } from './extractZip';
