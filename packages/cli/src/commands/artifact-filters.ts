// The filters policies and evidence share (the spec defines the evidence list as the policies
// list with other statuses and fields).
import { listFilter, type OptionSpec } from '../args.ts';

export function artifactFilters(what: string, statuses: readonly string[]): OptionSpec[] {
  return [
    listFilter('status', 'status', statuses),
    listFilter('framework-ids', `${what} mapped to any of these frameworks`),
    listFilter('control-ids', `${what} mapped to any of these controls`),
    listFilter('entity-ids', `${what} linked to any of these entities`),
    { name: 'is-relevant', kind: 'boolean', param: 'isRelevant', help: `only relevant (true) or not relevant (false) ${what}` },
    listFilter('assignee-emails', `${what} assigned to any of these emails`),
    listFilter('approver-emails', `${what} with an approver among these emails`),
    listFilter('departments', 'departments; "No Department" selects those without one'),
    { name: 'next-review-at-from', kind: 'time', param: 'nextReviewAtFrom', help: 'next review on or after this time' },
    { name: 'next-review-at-to', kind: 'time', param: 'nextReviewAtTo', help: 'next review on or before this time' },
  ];
}
