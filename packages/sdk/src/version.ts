// The SDK's version, sent in the User-Agent. A test (test/user-agent.test.ts) keeps it equal to
// package.json's, which the published build cannot read at run time without a file system.
export const SDK_VERSION = '0.2.0';
