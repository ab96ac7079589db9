import type { ComponentChildren, Ref } from 'preact';
import { useId } from 'preact/hooks';

interface ScrollTableProps {
  /** the table's class (its column widths in styles.css) */
  class?: string;
  caption: string;
  captionRef: Ref<HTMLTableCaptionElement>;
  busy: boolean;
  /** the column headings, in order */
  columns: string[];
  /** a last column of buttons, headed for screen readers only */
  actions?: boolean;
  /** the scroll region's name, when it is not the caption */
  label?: string;
  /** the rows */
  children: ComponentChildren;
}

/** A table of the console's lists: its caption takes the focus after a change, and it scrolls sideways on narrow screens. */
export function ScrollTable({ class: className, caption, captionRef, busy, columns, actions, label, children }: ScrollTableProps) {
  const captionId = useId();
  return (
    // Focusable so keyboard users can scroll the table sideways on narrow screens.
    <div class="table-scroll" role="group" aria-label={label} aria-labelledby={label === undefined ? captionId : undefined} tabIndex={0}>
      <table class={className} aria-busy={busy}>
        <caption id={label === undefined ? captionId : undefined} ref={captionRef} tabIndex={-1}>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <td class="actions-cell">
                <span class="visually-hidden">Actions</span>
              </td>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
