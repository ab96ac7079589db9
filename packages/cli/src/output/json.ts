// `--output json`: the response's `data`, pretty-printed, exactly as JSON.stringify(data, null, 2)
// would print it. A list is written item by item, so a long paged list is never held whole.
export function jsonDocument(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export interface JsonArrayWriter {
  item(value: unknown): string;
  end(): string;
}

export function jsonArrayWriter(): JsonArrayWriter {
  let count = 0;
  return {
    item(value) {
      const text = JSON.stringify(value, null, 2).replace(/\n/g, '\n  ');
      return `${count++ === 0 ? '[\n' : ',\n'}  ${text}`;
    },
    end: () => (count === 0 ? '[]\n' : '\n]\n'),
  };
}
