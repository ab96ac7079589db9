// Links people open from a record: a finding's report link, an evidence record's external-link
// attachment, a policy's document link. One check for all of them: an http(s) URL with a host and
// no spaces, and without a user name or password.

/**
 * Whether the link names a user or password (`https://user:pass@host`): people would open a
 * credential shown to everyone who reads the record, and `https://trusted.example@evil.example`
 * disguises where the link goes. Any `@` before the path counts, even with an empty name.
 */
function hasUserInfo(text: string): boolean {
  const url = new URL(text);
  return url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(text);
}

function isWebUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text) || /\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Longest link accepted anywhere. */
export const MAX_URL_LENGTH = 2048;

/** Why `text` is not a link people may be sent to, or undefined when it is one. */
export function webLinkProblem(text: string): string | undefined {
  if (!isWebUrl(text)) return 'must be an http:// or https:// URL';
  if (hasUserInfo(text)) return 'must not contain a user name or password';
  return undefined;
}
