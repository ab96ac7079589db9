// The one place the CLI reaches the SDK. In the repository the SDK is imported from its TypeScript
// source (its package exports point at a dist/ that may not be built); the published bundle
// inlines it (the esbuild `build` script of packages/cli/package.json), so the CLI installs with
// no runtime dependency.
export * from '../../sdk/src/index.ts';
