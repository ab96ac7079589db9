// A one-line progress bar for terminals; silent when stderr is not a TTY.
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let last = 0;
  const enabled = Boolean(stream.isTTY);
  return {
    update(done: number, total: number) {
      const now = Date.now();
      // Only after a moment, and at most ten times a second.
      if (!enabled || now - started < 300 || (now - last < 100 && done < total)) return;
      last = now;
      const width = 30;
      const ratio = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(ratio * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% (${done}/${total})`);
    },
    done() {
      if (enabled && last > 0) stream.write('\n');
    },
  };
}
