// The field changes PATCH makes alike on evidence and policies: relevance (a record that is not
// relevant needs a reason) and external links (http(s) only, without user info, with a name that
// shows as stored). Each adds its refusals to `issues`, naming the field in the body.
import type { FieldIssue } from '../../shared/errors.ts';
import { invisibleIssue, typedName } from '../text.ts';
import { webLinkProblem } from '../web-link.ts';

/** The relevance columns a body sets, shared by evidence and policies. */
export function relevanceChange(
  row: { isRelevant: boolean; notRelevantReason: string | null },
  body: { isRelevant?: boolean; notRelevantReason?: string },
  issues: FieldIssue[],
  columns: { isRelevant?: boolean; notRelevantReason?: string | null },
): void {
  if (body.isRelevant === true) {
    if (body.notRelevantReason !== undefined)
      issues.push({ field: 'notRelevantReason', message: 'is given only with isRelevant false; isRelevant true clears it' });
    columns.isRelevant = true;
    columns.notRelevantReason = null;
  } else if (body.isRelevant === false) {
    const reason = body.notRelevantReason ?? (row.isRelevant ? null : row.notRelevantReason);
    if (reason === null) issues.push({ field: 'notRelevantReason', message: 'is required when isRelevant is false' });
    columns.isRelevant = false;
    columns.notRelevantReason = reason;
  } else if (body.notRelevantReason !== undefined) {
    if (row.isRelevant)
      issues.push({ field: 'notRelevantReason', message: 'is given only with isRelevant false, or while the record is not relevant' });
    columns.notRelevantReason = body.notRelevantReason;
  }
}

/** Checked links, named as typed: http(s) only, no user info, a name that shows as stored. */
export function checkedLinks<T extends { displayName: string; url: string; note?: string }>(
  links: readonly T[],
  field: string,
  issues: FieldIssue[],
): Array<T & { displayName: string; note: string | null }> {
  return links.map((link, i) => {
    const at = `${field}[${i}]`;
    const name = typedName(link.displayName);
    if (name === undefined) issues.push(invisibleIssue(`${at}.displayName`));
    else if (name === '') issues.push({ field: `${at}.displayName`, message: 'must not be blank' });
    const problem = webLinkProblem(link.url);
    if (problem) issues.push({ field: `${at}.url`, message: problem });
    return { ...link, displayName: name ?? link.displayName, note: link.note === undefined || link.note === '' ? null : link.note };
  });
}
