// Response shapes of controls: the list item and the get shape (defined in the domain).
export { ControlDetail, ControlSummary } from '../../../domain/controls/schema.ts';
