// What a check-results format is, as its folder describes it (src/formats/<tool>/format.ts): the
// contract of the checkers' parsers and of the registry that lists them (./formats.ts), the sibling
// of src/formats/scanners/contract.ts for the reports that feed tests instead of findings. What the
// import needs of a format is the domain's (domain/tests/check-result.ts); a description adds its
// words for people.
import type { CheckFormat, CheckParser } from '../../domain/tests/check-result.ts';

export interface CheckFormatDescription<Name extends string = string> extends Partial<Pick<CheckFormat, 'opensWith' | 'openingWords'>> {
  readonly name: Name;
  /** as the route's description lists it: "Prowler OCSF JSON" */
  readonly title: string;
  /** as a refusal names it: "a Prowler OCSF JSON report" */
  readonly label: string;
  /** the tool's part of the check names it reads: `prowler` in `prowler:<check ID>` */
  readonly tool: string;
  readonly read: CheckParser;
}

/** A description with its name kept as a literal type (the registry derives the names' union from it). */
export const describeCheckFormat = <const Name extends string>(description: CheckFormatDescription<Name>) => description;
