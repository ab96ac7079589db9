// "Did you mean …?" for a mistyped command, action or flag: the same nearest-name rule as the
// admin command `cds` (src/cli/suggest.ts), imported from there rather than written twice. The
// published bundle inlines it (the esbuild `build` script of packages/cli/package.json), as it
// does the SDK (sdk.ts).
export { closest, didYouMean } from '../../../src/cli/suggest.ts';
